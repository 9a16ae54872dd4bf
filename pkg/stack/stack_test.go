package stack_test

import (
	"path/filepath"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/stack"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	krmtest.Golden(t, "testdata", stack.Function)
}

// TestPkgerParser replays pkger's own parser tests (testdata/pkger, one
// folder per test, its template as the package file template.yaml): every
// case is refused with pkger's message at the field pkger's test names.
func TestPkgerParser(t *testing.T) {
	t.Parallel()
	krmtest.Golden(t, filepath.Join("testdata", "pkger"), stack.Function)
}
