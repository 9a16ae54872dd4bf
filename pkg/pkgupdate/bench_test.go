package pkgupdate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

// benchPackage is an upstream of n resources in n/5 files, at version v.
func benchPackage(n, v int) kptpkg.Files {
	files := kptpkg.Files{"Kptfile": []byte(kptfileV1)}
	for f := 0; f < n/5; f++ {
		var docs []string
		for i := 0; i < 5; i++ {
			name := fmt.Sprintf("app-%d-%d", f, i)
			docs = append(docs, strings.NewReplacer("name: app\n", "name: "+name+"\n", "replicas: 1", fmt.Sprintf("replicas: %d", v)).Replace(deployment))
		}
		files[fmt.Sprintf("f%d.yaml", f)] = []byte(strings.Join(docs, "---\n"))
	}
	return files
}

// BenchmarkUpdate updates a 50-resource package whose every resource the
// upstream changed and the downstream labelled.
func BenchmarkUpdate(b *testing.B) {
	v1, v2 := benchPackage(50, 1), benchPackage(50, 2)
	local, err := pkgupdate.Clone(v1, "app", origin1)
	if err != nil {
		b.Fatal(err)
	}
	for p, data := range local {
		local[p] = []byte(strings.ReplaceAll(string(data), "  annotations:\n", "  labels:\n    team: blue\n  annotations:\n"))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, conflicts, err := pkgupdate.Update(v1, v2, local, origin2, pkgupdate.KeepLocal); err != nil || len(conflicts) > 0 {
			b.Fatal(err, conflicts)
		}
	}
}

// BenchmarkClone clones a 50-resource package.
func BenchmarkClone(b *testing.B) {
	v1 := benchPackage(50, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pkgupdate.Clone(v1, "app", origin1); err != nil {
			b.Fatal(err)
		}
	}
}
