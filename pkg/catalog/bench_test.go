package catalog_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
)

// BenchmarkIndexCorpus indexes every repository of the Nephio catalog
// (85 packages, 881 files, 12 MB), read from its folders before the clock
// starts.
func BenchmarkIndexCorpus(b *testing.B) {
	repos := readNephio(b)
	stop := krmtest.CPU(b)
	for b.Loop() {
		if pkgs, _ := indexNephio(repos); len(pkgs) != 85 {
			b.Fatalf("%d packages, want 85", len(pkgs))
		}
	}
	stop()
}
