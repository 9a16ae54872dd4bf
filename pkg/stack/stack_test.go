package stack_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/krmfn"
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
	in := krmtest.StackPackage(1500)
	env := krmtest.Env(krmtest.Clock, nil)
	run := func(procs int) ([]byte, string) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out, rs := krmfn.Process(stack.Function, in, env)
		return out, fmt.Sprint(rs)
	}
	wantOut, wantResults := run(1)
	if !strings.Contains(wantResults, "created") {
		t.Fatalf("the input should be applied: %.500s", wantResults)
	}
	for _, procs := range []int{2, 4} {
		out, results := run(procs)
		if diff := cmp.Diff(wantResults, results); diff != "" {
			t.Errorf("GOMAXPROCS=%d: results (-one +several):\n%s", procs, diff)
		}
		if !bytes.Equal(wantOut, out) {
			t.Errorf("GOMAXPROCS=%d: the output differs from one goroutine's", procs)
		}
	}
}
