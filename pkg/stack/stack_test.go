package stack_test

import (
	"path/filepath"
	"strings"
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

// Items read on several goroutines come out as on one: the same record,
// the same results.
func TestParallelSameAsSerial(t *testing.T) {
	// Not parallel: it changes GOMAXPROCS.
	if _, results := krmtest.SameOnAnyProcessors(t, stack.Function, krmtest.StackPackage(1500)); !strings.Contains(results, "created") {
		t.Fatalf("the input should be applied: %.500s", results)
	}
}
