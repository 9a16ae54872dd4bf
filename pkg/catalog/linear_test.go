package catalog_test

import (
	"fmt"
	"testing"

	"github.com/kptkit/kptkit/pkg/catalog"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// deepPackage is a package with a ConfigMap in each of a chain of n
// folders, one below the other.
func deepPackage(n int) kptpkg.Files {
	f := kptpkg.Files{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n")}
	dir := ""
	for i := range n {
		f[dir+"cm.yaml"] = fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n", i)
		dir += "d/"
	}
	return f
}

// TestIndexDeepIsLinear: indexing a package whose files lie in a chain of
// folders costs allocations in proportion to its folders and files.
func TestIndexDeepIsLinear(t *testing.T) {
	var allocs []float64
	for _, n := range []int{250, 500, 1000} {
		files := deepPackage(n)
		allocs = append(allocs, testing.AllocsPerRun(1, func() {
			if pkgs, rs := catalog.Index(catalog.FolderRepo("r", files), nil); len(pkgs) != 1 || len(rs) != 0 {
				t.Fatalf("%d levels: %d packages, %v", n, len(pkgs), rs)
			}
		}))
	}
	t.Logf("allocations at 250, 500, 1000 levels: %v", allocs)
	for i := 1; i < len(allocs); i++ {
		if allocs[i] > 2.2*allocs[i-1] {
			t.Errorf("allocations %v: more than double with the depth", allocs)
		}
	}
}
