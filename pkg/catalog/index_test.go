package catalog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/catalog"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

// render writes an index as `catalog index` does (a YAML stream), then
// its results.
func render(t *testing.T, pkgs []v1alpha1.CatalogPackage, rs []result.Result) string {
	t.Helper()
	var b strings.Builder
	for _, p := range pkgs {
		y, err := yaml.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	b.WriteString("--- # results\n")
	for _, r := range result.List(rs).Sorted() {
		fmt.Fprintf(&b, "# %s\n", r)
	}
	return b.String()
}

// TestIndexGolden indexes each testdata/index/<case>/repo folder as the
// repository "platform" and compares with expected.yaml.
func TestIndexGolden(t *testing.T) {
	t.Parallel()
	cases, err := filepath.Glob(filepath.Join("testdata", "index", "*", "repo"))
	if err != nil || len(cases) == 0 {
		t.Fatal("no cases in testdata/index")
	}
	for _, dir := range cases {
		name := filepath.Base(filepath.Dir(dir))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			files, err := kptpkg.Read(os.DirFS(dir))
			if err != nil {
				t.Fatal(err)
			}
			pkgs, rs := catalog.Index(catalog.FolderRepo("platform", files), nil)
			golden(t, filepath.Join(filepath.Dir(dir), "expected.yaml"), render(t, pkgs, rs))
		})
	}
}

func kf(name string) []byte {
	return []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n")
}

// TestIndexVersions: versions come from several trees (git revisions), the
// latest is what the branch head matches, and a previous index saves
// reading a version again: by commit (the tree is not even read), or by the
// digest of a folder's files.
func TestIndexVersions(t *testing.T) {
	t.Parallel()
	v1 := kptpkg.Files{"db/Kptfile": kf("db")}
	v2 := kptpkg.Files{"db/Kptfile": kf("db"), "db/a.yaml": []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")}
	reads := 0
	tree := func(commit string, files kptpkg.Files) *catalog.Tree {
		return catalog.NewTree(commit, func() (kptpkg.Files, error) { reads++; return files, nil })
	}
	t1, t2 := tree("c1", v1), tree("c2", v2)
	repo := catalog.Repo{Name: "platform", Latest: map[string]string{"db": "v1"}, Releases: []catalog.Release{
		{Package: "db", Version: "v1", Tree: t1},
		{Package: "db", Version: "v2", Tree: t2},
		{Package: "gone", Version: "v1", Tree: t2},
	}}
	pkgs, rs := catalog.Index(repo, nil)
	want := `---
apiVersion: fn.kptkit.dev/v1alpha1
kind: CatalogPackage
metadata:
  name: db
  annotations:
    kptkit.dev/in-cluster: "true"
spec:
  repo: platform
  latestVersion: v1
  versions:
  - version: v2
    commit: c2
    requires:
      apis:
      - group: example.com
        kind: Widget
        reason: Widget/w in a.yaml
  - version: v1
    commit: c1
--- # results
# repository platform: package gone v1 is skipped: its folder holds no Kptfile at this version
`
	if diff := cmpText(want, render(t, pkgs, rs)); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
	if reads != 2 {
		t.Errorf("read %d trees, want 2", reads)
	}

	// Again with the previous index: no tree is read; what the previous
	// index says is kept (a marker shows it).
	pkgs[0].Spec.Versions[1].Provides.Capabilities = []string{"from-the-previous-index"}
	reads = 0
	again, _ := catalog.Index(catalog.Repo{Name: "platform", Releases: []catalog.Release{
		{Package: "db", Version: "v1", Tree: tree("c1", v1)},
		{Package: "db", Version: "v2", Tree: tree("c2", v2)},
	}}, pkgs)
	if reads != 0 || len(again) != 1 || again[0].Spec.Versions[1].Provides.Capabilities == nil {
		t.Errorf("with the previous index: %d reads, %+v", reads, again)
	}

	// A folder: the digest of its files decides.
	folder, _ := catalog.Index(catalog.FolderRepo("platform", v2), nil)
	folder[0].Spec.Versions[0].Provides.Capabilities = []string{"from-the-previous-index"}
	same, _ := catalog.Index(catalog.FolderRepo("platform", v2), folder)
	changed, _ := catalog.Index(catalog.FolderRepo("platform", v1), folder)
	if same[0].Spec.Versions[0].Provides.Capabilities == nil || changed[0].Spec.Versions[0].Provides.Capabilities != nil {
		t.Errorf("folder digests: same %+v, changed %+v", same[0].Spec.Versions[0], changed[0].Spec.Versions[0])
	}
}

func cmpText(want, got string) string { return cmp.Diff(want, got) }
