package kptfile_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// checks are Kptfile types and what kpt 1.0.0-beta.56 says of them (its
// error's own text, before its CLI words it for people: TestCheckAsKpt).
var checks = []struct{ apiVersion, kind, want string }{
	{"kpt.dev/v1", "Kptfile", ""},
	{"kpt.dev/v1alpha1", "Kptfile", `old resource version "v1alpha1" found in Kptfile`},
	{"kpt.dev/v1alpha2", "Kptfile", `old resource version "v1alpha2" found in Kptfile`},
	{"kpt.dev/v1beta1", "Kptfile", `unknown resource type "kpt.dev/v1beta1, Kind=Kptfile" found in Kptfile`},
	{"kpt.dev/v9", "Kptfile", `unknown resource type "kpt.dev/v9, Kind=Kptfile" found in Kptfile`},
	{"kpt.dev/v1alpha2", "Other", `unknown resource type "kpt.dev/v1alpha2, Kind=Other" found in Kptfile`},
	{"kpt.dev/v1", "ConfigMap", `unknown resource type "kpt.dev/v1, Kind=ConfigMap" found in Kptfile`},
	{"v1", "Kptfile", `unknown resource type "/v1, Kind=Kptfile" found in Kptfile`},
	{"kpt.dev", "Kptfile", `unknown resource type "/kpt.dev, Kind=Kptfile" found in Kptfile`},
	{"foo/v1", "Kptfile", `unknown resource type "foo/v1, Kind=Kptfile" found in Kptfile`},
	{"a/b/c", "Kptfile", `unexpected GroupVersion string: a/b/c`},
}

func kptfileNode(t testing.TB, apiVersion, kind string) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse("apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: app\n")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, c := range checks {
		got := ""
		if err := kptfile.Check(kptfileNode(t, c.apiVersion, c.kind)); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check(%s %s) = %q, want %q", c.apiVersion, c.kind, got, c.want)
		}
	}
}

// TestCheckAsKpt runs the real kpt's `pkg update` on a package with each
// Kptfile type: its CLI words an old version as `has an old version
// ("v1alpha2") of the Kptfile schema` and another type as `has an unknown
// resource type ("/v1, Kind=Kptfile")`, quoting what Check quotes.
func TestCheckAsKpt(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"kpt", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: this test runs the real kpt", tool)
		}
	}
	for _, c := range checks {
		if c.want == "" || strings.HasPrefix(c.want, "unexpected") {
			continue // kpt updates the first; of the second its CLI says only that it "can't be read"
		}
		t.Run(c.apiVersion+"_"+c.kind, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pkg := filepath.Join(dir, "app")
			if err := os.MkdirAll(pkg, 0o755); err != nil {
				t.Fatal(err)
			}
			kf := "apiVersion: " + c.apiVersion + "\nkind: " + c.kind + "\nmetadata:\n  name: app\n"
			if err := os.WriteFile(filepath.Join(pkg, "Kptfile"), []byte(kf), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"git", "init", "-q", "."}, {"git", "add", "."}, {"git", "commit", "-qm", "app"}, {"kpt", "pkg", "update", "app"}} {
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=k", "GIT_AUTHOR_EMAIL=k@example.com",
					"GIT_COMMITTER_NAME=k", "GIT_COMMITTER_EMAIL=k@example.com", "KPT_DISABLE_ATTRIBUTION=1")
				out, err := cmd.CombinedOutput()
				if args[0] == "git" && err != nil {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
				if args[0] != "kpt" {
					continue
				}
				quoted := c.want[strings.Index(c.want, `"`) : strings.LastIndex(c.want, `"`)+1]
				word := "unknown resource type (" + quoted + ")"
				if strings.HasPrefix(c.want, "old") {
					word = "old version (" + quoted + ")"
				}
				if !strings.Contains(string(out), word) {
					t.Errorf("kpt pkg update on a %s %s said %q, not %q", c.apiVersion, c.kind, out, word)
				}
			}
		})
	}
}

func TestReadAndParse(t *testing.T) {
	t.Parallel()
	const good = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
	for _, c := range []struct{ name, in, want string }{
		{"good", good, ""},
		{"two documents", good + "---\n" + good, `error reading Kptfile at "sub/Kptfile": it holds 2 documents: a Kptfile is one`},
		{"none", "", `error reading Kptfile at "sub/Kptfile": it holds 0 documents: a Kptfile is one`},
		{"old", strings.Replace(good, "v1", "v1alpha2", 1), `error reading Kptfile at "sub/Kptfile": old resource version "v1alpha2" found in Kptfile`},
		{"not YAML", "apiVersion: [\n", "cannot read sub/Kptfile: MalformedYAMLError: yaml: line 1: did not find expected node content"},
		{"a lineage of the wrong shape", good + "upstream:\n  git: main\nupstreamLock: [x]\n",
			`error reading Kptfile at "sub/Kptfile": upstream.git: must be a mapping, not "main"; upstreamLock: must be a mapping, not a list`},
	} {
		got := ""
		kf, err := kptfile.Read("sub/Kptfile", []byte(c.in))
		if err != nil {
			got = err.Error()
		} else if p := kf.GetAnnotations()[kptapi.AnnotationPath]; p != "sub/Kptfile" {
			t.Errorf("%s: the Kptfile's path annotation is %q", c.name, p)
		}
		if got != c.want {
			t.Errorf("%s: Read = %q, want %q", c.name, got, c.want)
		}
		if _, err := kptfile.Parse("sub/Kptfile", []byte(c.in)); (err != nil) != (c.name == "two documents" || c.name == "none" || c.name == "not YAML") {
			t.Errorf("%s: Parse = %v", c.name, err)
		}
	}
}

func TestRootAndEdit(t *testing.T) {
	t.Parallel()
	files := kptpkg.Files{
		"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: # the package\n  name: app\n"),
		"a.yaml":  []byte("x: 1\n"),
	}
	kf, err := kptfile.Root(files)
	if err != nil || kf.GetName() != "app" {
		t.Fatalf("Root = %v, %v", kf, err)
	}
	if kf, err := kptfile.Root(kptpkg.Files{"a.yaml": nil}); kf != nil || err != nil {
		t.Errorf("Root of a package without a Kptfile = %v, %v", kf, err)
	}
	got, err := kptfile.Edit(files, func(kf *yaml.RNode) error { return kf.PipeE(yaml.SetLabel("l", "v")) })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: # the package\n  name: app\n  labels:\n    l: 'v'\n",
		"a.yaml":  "x: 1\n",
	}
	gotText := map[string]string{}
	for p, b := range got {
		gotText[p] = string(b)
	}
	if diff := cmp.Diff(want, gotText); diff != "" {
		t.Errorf("Edit (-want +got):\n%s", diff)
	}
	if string(files["Kptfile"]) == string(got["Kptfile"]) {
		t.Error("Edit changed its input")
	}
	stop := errors.New("stop")
	for _, c := range []struct {
		files kptpkg.Files
		edit  func(*yaml.RNode) error
		want  string
	}{
		{kptpkg.Files{}, nil, `error reading Kptfile at "Kptfile": the package has none`},
		{kptpkg.Files{"Kptfile": []byte("a: [\n")}, nil, "cannot read Kptfile: MalformedYAMLError: yaml: line 1: did not find expected node content"},
		{files, func(*yaml.RNode) error { return stop }, "stop"},
	} {
		if _, err := kptfile.Edit(c.files, c.edit); err == nil || err.Error() != c.want {
			t.Errorf("Edit = %v, want %s", err, c.want)
		}
	}
}

func TestRootItem(t *testing.T) {
	t.Parallel()
	items := func(paths ...string) *resourcelist.ResourceList {
		var nodes []*yaml.RNode
		for _, p := range paths {
			n := kptfileNode(t, "kpt.dev/v1", "Kptfile")
			if p != "" {
				if err := n.PipeE(yaml.SetAnnotation(kptapi.AnnotationPath, p)); err != nil {
					t.Fatal(err)
				}
			}
			nodes = append(nodes, n)
		}
		return kptpkg.ResourceList(nodes, nil, nil)
	}
	for _, c := range []struct {
		paths []string
		found bool
		want  string
	}{
		{nil, false, ""},
		{[]string{"sub/Kptfile"}, false, ""},
		{[]string{"sub/Kptfile", "Kptfile"}, true, ""},
		{[]string{""}, true, ""},
		{[]string{"Kptfile", ""}, false, "2 Kptfiles could be the package root's (Kptfile and item 1): keep one"},
	} {
		kf, rs := kptfile.RootItem(items(c.paths...))
		got := ""
		for _, r := range rs {
			got += r.Message
		}
		if (kf != nil) != c.found || got != c.want {
			t.Errorf("RootItem(%q) = %v, %q; want found %v, %q", c.paths, kf != nil, got, c.found, c.want)
		}
	}
}

func TestLineage(t *testing.T) {
	t.Parallel()
	kf, err := kptfile.Read(kptapi.FileName, []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"+
		"upstream:\n  type: git\n  git:\n    repo: r # the catalog\n    directory: /app\n    ref: main\n"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := kptfile.LineageOf(kf)
	if err != nil {
		t.Fatal(err)
	}
	want := kptfile.Lineage{Upstream: &kptapi.Upstream{Type: "git", Git: &kptapi.Git{Repo: "r", Directory: "/app", Ref: "main"}}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("LineageOf (-want +got):\n%s", diff)
	}
	up := kptapi.Upstream{Type: "git", Git: &kptapi.Git{Repo: "r", Directory: "/app", Ref: "v2"}, UpdateStrategy: "resource-merge"}
	lock := &kptapi.UpstreamLock{Type: "git", Git: &kptapi.GitLock{Repo: "r", Directory: "/app", Ref: "v2", Commit: "abc"}}
	if err := kptfile.SetLineage(kf, up, lock); err != nil {
		t.Fatal(err)
	}
	kptfile.Order(kf.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
	b, err := kptpkg.Encode([]*yaml.RNode{kf})
	if err != nil {
		t.Fatal(err)
	}
	wantText := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n" +
		"upstream:\n  type: git\n  git:\n    repo: r # the catalog\n    directory: /app\n    ref: v2\n  updateStrategy: resource-merge\n" +
		"upstreamLock:\n  type: git\n  git:\n    repo: r\n    directory: /app\n    ref: v2\n    commit: abc\n"
	if diff := cmp.Diff(wantText, string(b)); diff != "" {
		t.Errorf("SetLineage (-want +got):\n%s", diff)
	}
	if err := kptfile.SetLineage(kf, up, nil); err != nil {
		t.Fatal(err)
	}
	if kf.Field("upstreamLock") != nil {
		t.Error("SetLineage without a lock left the upstreamLock")
	}
}
