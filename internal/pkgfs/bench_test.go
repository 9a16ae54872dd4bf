package pkgfs_test

import (
	"fmt"
	"testing"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// benchPackage is a package of 50 files of 1 KB, at version v: version 2
// changes six of them (as a fleet's v1 → v2 update does).
func benchPackage(v int) kptpkg.Files {
	files := kptpkg.Files{}
	for i := range 50 {
		rev := 1
		if i%9 == 0 {
			rev = v
		}
		files[fmt.Sprintf("res-%02d.yaml", i)] = fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\ndata:\n  v: \"%d\"\n  pad: %0900d\n", i, rev, 0)
	}
	return files
}

// BenchmarkWrite writes packages into an output: created (first), then
// updated with six files changed (update); and a package written in place
// with all its files changed (in-place), as kptkit render writes.
func BenchmarkWrite(b *testing.B) {
	v1, v2 := benchPackage(1), benchPackage(2)
	out, err := pkgfs.OpenOut(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	n := 0
	next := func() int { n++; return n }
	b.Run("first", func(b *testing.B) {
		for range b.N {
			if _, err := out.Write(fmt.Sprintf("edge%06d/app", next()), nil, v1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		for range b.N {
			p := fmt.Sprintf("edge%06d/app", next())
			b.StopTimer()
			if _, err := out.Write(p, nil, v1); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := out.Write(p, v1, v2); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("in-place", func(b *testing.B) {
		// kptkit render in place over a package all of whose files change.
		dir := b.TempDir()
		v3 := kptpkg.Files{}
		for p, data := range v1 {
			v3[p] = append([]byte("# rendered\n"), data...)
		}
		for i := range b.N {
			from, to := v1, v3
			if i%2 == 1 {
				from, to = v3, v1
			}
			if err := pkgfs.Write(dir, from, to); err != nil {
				b.Fatal(err)
			}
		}
	})
}
