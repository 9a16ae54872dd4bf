package deps_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	krmtest.Golden(t, "testdata", deps.Function)
}

func readCase(tb testing.TB, dir string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, krmtest.Input))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
