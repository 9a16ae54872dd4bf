package catalog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kptkit/kptkit/pkg/catalog"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

// FuzzIndex indexes a package whose Kptfile and one resource file are what
// the fuzzer writes (seeded with the golden cases' files): no panic, and
// the version is either indexed or skipped with a warning.
func FuzzIndex(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "index", "*", "repo", "*", "*.yaml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n  annotations:\n    kptkit.dev/provides: a, b\n"), b)
	}
	f.Fuzz(func(t *testing.T, kptfile, resource []byte) {
		repo := catalog.FolderRepo("r", kptpkg.Files{"p/Kptfile": kptfile, "p/r.yaml": resource, "p/sub/Kptfile": kptfile})
		pkgs, rs := catalog.Index(repo, nil)
		if len(pkgs) == 0 && len(rs) == 0 {
			t.Fatalf("package p neither indexed nor skipped with a warning")
		}
		if result.List(rs).HasError() {
			t.Fatalf("an index reports warnings, not errors: %v", rs)
		}
	})
}

// FuzzInstalled reads a deployment's Kptfile as the fuzzer writes it: no
// panic; a package is either installed at a version or warned about.
func FuzzInstalled(f *testing.F) {
	f.Add([]byte(string(cloned("a", "https://x/c.git", "/infra/a", "infra/a/v2", "abc1234"))), "infra/a/v1")
	f.Add([]byte(string(cloned("a", "/srv/c", "a", "main", "abc1234"))), "a/v3")
	f.Add([]byte("upstreamLock: {git: {repo: r, ref: deadbeef}}\n"), "v1")
	f.Fuzz(func(t *testing.T, kf []byte, tag string) {
		tags := func(string) (map[string]string, error) { return map[string]string{tag: "abc1234"}, nil }
		d := catalog.Deployment{Name: "d", Cluster: "c", Files: kptpkg.Files{"x/Kptfile": kf}}
		pkgs, _ := catalog.Installed(d, []catalog.Source{{Name: "c", Repo: "https://x/c.git", Dir: "infra"}}, tags)
		for _, p := range pkgs {
			if p.Spec.Version == "" || p.Spec.Cluster != "c" {
				t.Fatalf("installed without a version or cluster: %+v", p)
			}
		}
	})
}
