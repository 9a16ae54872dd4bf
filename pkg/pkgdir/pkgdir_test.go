package pkgdir_test

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/pkgdir"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// packages reads every package (folder with a Kptfile) below root.
func packages(t *testing.T, root string) map[string]pkgdir.Files {
	t.Helper()
	pkgs := map[string]pkgdir.Files{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "Kptfile" {
			return err
		}
		dir := filepath.Dir(p)
		files, err := kptpkg.Read(os.DirFS(dir))
		pkgs[dir] = pkgdir.Files(files)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestRoundTripCorpus: through Source, set-package-context and Sink, every
// package of the Nephio catalog comes back byte-identical but for the one
// key set in its package context.
func TestRoundTripCorpus(t *testing.T) {
	t.Parallel()
	pkgs := packages(t, corpus.Nephio(t))
	if len(pkgs) < 50 {
		t.Fatalf("found %d packages in the corpus, want the catalog's 87", len(pkgs))
	}
	cfg, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: function-input}\ndata: {touched: \"yes\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	for dir, files := range pkgs {
		rl, err := pkgdir.Source(files, nil, cfg)
		if err != nil {
			t.Errorf("%s: Source: %v", dir, err)
			continue
		}
		out, _ := krmfn.Process(pkgcontext.Function, rl, krmtest.Env(krmtest.Clock, nil))
		got, err := pkgdir.Sink(rl, out, files)
		if err != nil {
			t.Errorf("%s: Sink: %v", dir, err)
			continue
		}
		want := maps.Clone(files)
		if ctx, ok := files["package-context.yaml"]; ok && strings.Contains(string(ctx), "kptfile.kpt.dev") {
			// The changed file is written anew (as kpt writes it), with the key.
			if !strings.Contains(string(got["package-context.yaml"]), "\n  touched: \"yes\"\n") {
				t.Errorf("%s: package-context.yaml lacks the key:\n%s", dir, got["package-context.yaml"])
			}
			want["package-context.yaml"] = got["package-context.yaml"]
		}
		if diff := cmp.Diff(texts(want), texts(got)); diff != "" {
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

// texts makes files cheap to compare: go-cmp walks a []byte byte by byte.
func texts(files pkgdir.Files) map[string]string {
	out := make(map[string]string, len(files))
	for p, b := range files {
		out[p] = string(b)
	}
	return out
}
