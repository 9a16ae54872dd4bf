// Package corpus finds the real-world packages tests run on (the Nephio
// catalog in the workplace's shared/corpus): a test asks, and gets the
// folder, or is skipped with the reason.
package corpus

import (
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
