package kptpkg_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

const kf = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"

func cm(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
}

func TestRead(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"Kptfile":          {Data: []byte(kf)},
		"a.yaml":           {Data: []byte(cm("a"))},
		".git/config":      {Data: []byte("[core]\n")},
		"sub/.git/HEAD":    {Data: []byte("ref\n")},
		"mod/.git":         {Data: []byte("gitdir: ../.git/modules/mod\n")},
		".expected/x.yaml": {Data: []byte(cm("x"))},
		"README.md":        {Data: []byte("# p\n")},
	}
	got, err := kptpkg.Read(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".expected/x.yaml", "Kptfile", "README.md", "a.yaml"}
	if diff := cmp.Diff(want, got.Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func TestReadRefusesSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Kptfile"), []byte(kf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "leak.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := kptpkg.Read(os.DirFS(dir))
	if err == nil || err.Error() != "leak.yaml is a symbolic link: kpt packages are read without following links" {
		t.Errorf("err = %v", err)
	}
}

func tree() kptpkg.Files {
	return kptpkg.Files{
		"Kptfile":            []byte(kf),
		"a.yaml":             []byte(cm("a") + "---\n" + cm("b")),
		"notes/x.yml":        []byte(cm("x")),
		"README.md":          []byte("# p\n"),
		".krmignore":         []byte("# comment\nignored/\n*.skip.yaml\n"),
		"ignored/c.yaml":     []byte(cm("c")),
		"d.skip.yaml":        []byte(cm("d")),
		"sub/Kptfile":        []byte(kf),
		"sub/s.yaml":         []byte(cm("s")),
		"sub/ignored/t.yaml": []byte(cm("t")),
		"sub/deep/Kptfile":   []byte(kf),
		"sub/deep/u.yaml":    []byte(cm("u")),
		"sub-other/v.yaml":   []byte(cm("v")),
	}
}

func TestTree(t *testing.T) {
	t.Parallel()
	f := tree()
	for _, c := range []struct {
		name string
		got  any
		want any
	}{
		{"Packages", f.Packages(), []string{"", "sub", "sub/deep"}},
		{"Subpackages of root", f.Subpackages(""), []string{"sub"}},
		{"Subpackages of sub", f.Subpackages("sub"), []string{"sub/deep"}},
		{"PackageOf sub/deep/u.yaml", f.PackageOf("sub/deep/u.yaml"), "sub/deep"},
		{"PackageOf sub-other/v.yaml", f.PackageOf("sub-other/v.yaml"), ""},
		{"PackageOf sub", f.PackageOf("sub/Kptfile"), "sub"},
		// The root's .krmignore covers the root package only: sub has none.
		{"Ignored ignored/c.yaml", f.Ignored("ignored/c.yaml"), true},
		{"Ignored d.skip.yaml", f.Ignored("d.skip.yaml"), true},
		{"Ignored sub/ignored/t.yaml", f.Ignored("sub/ignored/t.yaml"), false},
		{"Ignored notes/x.yml", f.Ignored("notes/x.yml"), false},
		{"ResourcePaths", f.ResourcePaths("", true), []string{"Kptfile", "a.yaml", "notes/x.yml", "sub/Kptfile", "sub/deep/Kptfile", "sub/deep/u.yaml", "sub/ignored/t.yaml", "sub/s.yaml", "sub-other/v.yaml"}},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// where names each item by name@path#index.
func where(t *testing.T, items []*yaml.RNode) []string {
	t.Helper()
	var out []string
	for _, n := range items {
		a := n.GetAnnotations()
		out = append(out, n.GetName()+"@"+a["internal.config.kubernetes.io/path"]+"#"+a["internal.config.kubernetes.io/index"])
	}
	return out
}

// Resources reads the files ResourcePaths names, and their items in order.
func TestResources(t *testing.T) {
	t.Parallel()
	f := tree()
	for _, c := range []struct {
		dir   string
		deep  bool
		want  []string
		paths []string
	}{
		{"", true,
			[]string{"p@Kptfile#0", "a@a.yaml#0", "b@a.yaml#1", "x@notes/x.yml#0", "p@sub/Kptfile#0", "p@sub/deep/Kptfile#0", "u@sub/deep/u.yaml#0", "t@sub/ignored/t.yaml#0", "s@sub/s.yaml#0", "v@sub-other/v.yaml#0"},
			[]string{"Kptfile", "a.yaml", "notes/x.yml", "sub/Kptfile", "sub/deep/Kptfile", "sub/deep/u.yaml", "sub/ignored/t.yaml", "sub/s.yaml", "sub-other/v.yaml"}},
		{"", false,
			[]string{"p@Kptfile#0", "a@a.yaml#0", "b@a.yaml#1", "x@notes/x.yml#0", "v@sub-other/v.yaml#0"},
			[]string{"Kptfile", "a.yaml", "notes/x.yml", "sub-other/v.yaml"}},
		{"sub", false,
			[]string{"p@Kptfile#0", "t@ignored/t.yaml#0", "s@s.yaml#0"},
			[]string{"sub/Kptfile", "sub/ignored/t.yaml", "sub/s.yaml"}},
		{"sub", true,
			[]string{"p@Kptfile#0", "p@deep/Kptfile#0", "u@deep/u.yaml#0", "t@ignored/t.yaml#0", "s@s.yaml#0"},
			[]string{"sub/Kptfile", "sub/deep/Kptfile", "sub/deep/u.yaml", "sub/ignored/t.yaml", "sub/s.yaml"}},
	} {
		items, err := f.Resources(c.dir, c.deep)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, where(t, items)); diff != "" {
			t.Errorf("Resources(%q, %v) (-want +got):\n%s", c.dir, c.deep, diff)
		}
		if diff := cmp.Diff(c.paths, f.ResourcePaths(c.dir, c.deep)); diff != "" {
			t.Errorf("ResourcePaths(%q, %v) (-want +got):\n%s", c.dir, c.deep, diff)
		}
	}
}

func TestResourcesRefusesNonResources(t *testing.T) {
	t.Parallel()
	_, err := kptpkg.Files{"values.yaml": []byte("replicas: 3\n")}.Resources("", true)
	if err == nil || err.Error() != "values.yaml: document 0 is not a resource (it needs apiVersion and kind)" {
		t.Errorf("err = %v", err)
	}
}

func TestSink(t *testing.T) {
	t.Parallel()
	f := tree()
	f["a.yaml"] = []byte("# keep me\n" + cm("a") + "---\n" + cm("b"))
	f["wide.yaml"] = []byte("apiVersion: v1\nkind: List\nmetadata:\n  name: w\nitems:\n  - a\n  - b\n")
	f["empty.yaml"] = []byte("# nothing yet: kept, as kpt keeps it\n")
	before, err := f.Resources("", true)
	if err != nil {
		t.Fatal(err)
	}
	items := kptpkg.Copy(before)
	var kept []*yaml.RNode
	for _, n := range items {
		switch n.GetName() {
		case "s": // deleted
			continue
		case "x":
			if err := n.PipeE(yaml.SetLabel("touched", "true-ish")); err != nil {
				t.Fatal(err)
			}
		case "w":
			if err := n.PipeE(yaml.SetLabel("touched", "true-ish")); err != nil {
				t.Fatal(err)
			}
		}
		kept = append(kept, n)
	}
	got, err := kptpkg.Sink(kept, before, f)
	if err != nil {
		t.Fatal(err)
	}
	want := f.Clone()
	delete(want, "sub/s.yaml")
	want["notes/x.yml"] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    touched: 'true-ish'\n")
	// The wide sequence indentation it was read with survives.
	want["wide.yaml"] = []byte("apiVersion: v1\nkind: List\nmetadata:\n  name: w\n  labels:\n    touched: 'true-ish'\nitems:\n  - a\n  - b\n")
	if diff := cmp.Diff(texts(want), texts(got)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestSinkAll: Sink leaves in-cluster items out (they are inputs: their
// file stays as it was), SinkAll writes them back as kpt fn render does.
func TestSinkAll(t *testing.T) {
	t.Parallel()
	ic := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ic\n  annotations:\n    kptkit.dev/in-cluster: \"true\"\n"
	f := kptpkg.Files{"Kptfile": []byte(kf), "cluster.yaml": []byte(ic)}
	before, err := f.Resources("", true)
	if err != nil {
		t.Fatal(err)
	}
	items := kptpkg.Copy(before)
	for _, n := range items {
		if n.GetName() == "ic" {
			if err := n.PipeE(yaml.SetLabel("changed", "yes")); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := kptpkg.Sink(items, before, f)
	if err != nil {
		t.Fatal(err)
	}
	if string(got["cluster.yaml"]) != ic {
		t.Errorf("Sink wrote the in-cluster item:\n%s", got["cluster.yaml"])
	}
	got, err = kptpkg.SinkAll(items, before, f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got["cluster.yaml"]), "changed: 'yes'") {
		t.Errorf("SinkAll did not write the in-cluster item:\n%s", got["cluster.yaml"])
	}
	got, err = kptpkg.SinkAll(items[:1], before, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["cluster.yaml"]; ok {
		t.Error("SinkAll kept the file of a deleted in-cluster item")
	}
}

func TestSinkRefusesPathsOutside(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"../x.yaml", "/etc/x.yaml", "a/../../x.yaml", ""} {
		n, err := yaml.Parse(cm("a"))
		if err != nil {
			t.Fatal(err)
		}
		if err := n.PipeE(yaml.SetAnnotation("config.kubernetes.io/path", p)); err != nil {
			t.Fatal(err)
		}
		_, err = kptpkg.Sink([]*yaml.RNode{n}, nil, kptpkg.Files{})
		if err == nil {
			t.Errorf("path %q: no error", p)
		}
	}
}

func TestCheckPath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"edge01":           "",
		"edge01/pkg-a":     "",
		"":                 `repo is empty`,
		".":                `repo "." must stay inside its folder: no "." segment`,
		"..":               `repo ".." must stay inside its folder: no ".." segment`,
		"a/../b":           `repo "a/../b" must stay inside its folder: no ".." segment`,
		"a//b":             `repo "a//b" must stay inside its folder: no "" segment`,
		"a/":               `repo "a/" must stay inside its folder: no "" segment`,
		"/abs":             `repo "/abs" is absolute: it must be relative`,
		"C:/x":             `repo "C:/x" is absolute: it must be relative`,
		`a\b`:              `repo "a\\b": a backslash or NUL is not allowed in a path`,
		"with space/and-é": "",
	} {
		got := ""
		if err := kptpkg.CheckPath("repo", p); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckPath(%q) = %q, want %q", p, got, want)
		}
	}
}

// texts makes files cheap to compare: go-cmp walks a []byte byte by byte.
func texts(files kptpkg.Files) map[string]string {
	out := make(map[string]string, len(files))
	for p, b := range files {
		out[p] = string(b)
	}
	return out
}

func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a", "a/b", "..", "/x", "a\\b", "a/./b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if kptpkg.CheckPath("p", p) != nil {
			return
		}
		// A path that passes joins under any folder to a path below it.
		joined := filepath.ToSlash(filepath.Join("/root/out", p))
		if !strings.HasPrefix(joined, "/root/out/") || filepath.IsAbs(p) {
			t.Errorf("%q passed the check but joins to %q", p, joined)
		}
	})
}
