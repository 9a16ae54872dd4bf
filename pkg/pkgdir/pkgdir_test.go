package pkgdir_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pkgdir"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

const corpus = "../../../shared/corpus/nephio-catalog"

// packages reads every package (folder with a Kptfile) below root.
func packages(t *testing.T, root string) map[string]pkgdir.Files {
	t.Helper()
	pkgs := map[string]pkgdir.Files{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "Kptfile" {
			return err
		}
		dir := filepath.Dir(p)
		files := pkgdir.Files{}
		err = filepath.WalkDir(dir, func(q string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(q)
			rel, _ := filepath.Rel(dir, q)
			files[filepath.ToSlash(rel)] = b
			return err
		})
		pkgs[dir] = files
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestRoundTripCorpus: every package of the Nephio catalog comes back
// byte-identical through Source, an identity function and Sink.
func TestRoundTripCorpus(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("corpus not found: %v", err)
	}
	pkgs := packages(t, corpus)
	if len(pkgs) < 50 {
		t.Fatalf("found %d packages in the corpus, want the catalog's 87", len(pkgs))
	}
	for dir, files := range pkgs {
		rl, err := pkgdir.Source(files, nil, nil)
		if err != nil {
			t.Errorf("%s: Source: %v", dir, err)
			continue
		}
		out, results := krmfn.Process(krmfn.Identity, rl, krmtest.Env(krmtest.Clock, nil))
		if results.HasError() {
			t.Errorf("%s: identity failed: %v", dir, results)
			continue
		}
		got, err := pkgdir.Sink(rl, out, files)
		if err != nil {
			t.Errorf("%s: Sink: %v", dir, err)
			continue
		}
		if diff := cmp.Diff(files, got); diff != "" {
			t.Errorf("%s: files changed (-want +got):\n%s", dir, diff)
		}
	}
}

func TestSourceAnnotatesAndSinkRegroups(t *testing.T) {
	t.Parallel()
	files := pkgdir.Files{
		"Kptfile":      []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"),
		"a.yaml":       []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"),
		"README.md":    []byte("# p\n"),
		"sub/gone.yml": []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"),
	}
	extra, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\n  annotations: {kptkit.dev/in-cluster: \"true\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	rlBytes, err := pkgdir.Source(files, []*yaml.RNode{extra}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := resourcelist.Parse(rlBytes)
	if err != nil {
		t.Fatal(err)
	}
	var where []string
	for _, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
		h := it.Header()
		where = append(where, h.Name+"@"+h.Path+"#"+string(rune('0'+h.Index)))
	}
	if diff := cmp.Diff([]string{"p@Kptfile#0", "a@a.yaml#0", "b@a.yaml#1", "s@sub/gone.yml#0", "src@#0"}, where); diff != "" {
		t.Errorf("items mismatch (-want +got):\n%s", diff)
	}
	// A function deletes the Secret and moves b before a.
	for _, it := range rl.Select(func(h resourcelist.Header) bool { return h.Kind == "Secret" }) {
		rl.Delete(it)
	}
	out, err := rl.Write()
	if err != nil {
		t.Fatal(err)
	}
	out = []byte(strings.Replace(string(out), "internal.config.kubernetes.io/index: '1'", "internal.config.kubernetes.io/index: '-1'", 1))
	got, err := pkgdir.Sink(rlBytes, out, files)
	if err != nil {
		t.Fatal(err)
	}
	want := pkgdir.Files{
		"Kptfile":   files["Kptfile"],
		"a.yaml":    []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
		"README.md": files["README.md"],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files mismatch (-want +got):\n%s", diff)
	}
}

func TestSourceRefusesNonResources(t *testing.T) {
	t.Parallel()
	_, err := pkgdir.Source(pkgdir.Files{"values.yaml": []byte("replicas: 3\n")}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "values.yaml: document 0 is not a resource") {
		t.Errorf("Source error = %v", err)
	}
}
