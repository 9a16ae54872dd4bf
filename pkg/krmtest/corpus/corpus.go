// Package corpus finds the real-world packages tests run on (the Nephio
// catalog in the workplace's shared/corpus): a test asks, and gets the
// folder, or is skipped with the reason.
package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Nephio returns the folder of the Nephio catalog: $KPTKIT_CORPUS, or
// shared/corpus/nephio-catalog next to a folder above the working one. A
// test without it is skipped, saying where it looked; so is one built with
// -race (parsing the corpus under the race detector takes minutes).
func Nephio(t testing.TB) string {
	t.Helper()
	if raceDetector {
		t.Skip("the corpus takes minutes under -race: make test runs it in a pass without -race")
	}
	if dir := os.Getenv("KPTKIT_CORPUS"); dir != "" {
		return dir
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Skipf("corpus: %v", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		c := filepath.Join(dir, "shared", "corpus", "nephio-catalog")
		if info, err := os.Stat(c); err == nil && info.IsDir() {
			return c
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Skipf("the Nephio corpus is not above %s: set KPTKIT_CORPUS to run this test", wd)
	return ""
}

// Packages returns the folders of the Nephio catalog that hold a Kptfile
// (each the root of a package tree, subpackages included), in walk order. A
// test without the catalog is skipped, as with Nephio.
func Packages(t testing.TB) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(Nephio(t), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "Kptfile" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 50 {
		t.Fatalf("found %d packages in the corpus, want the catalog's 85", len(dirs))
	}
	return dirs
}
