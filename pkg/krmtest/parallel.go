package krmtest

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/krmfn"
)

// SameOnAnyProcessors runs f over in with GOMAXPROCS 1, 2 and 4 and fails
// unless the output and the results are the same: a function that shares
// its work among goroutines must not depend on how many there are. It
// returns one goroutine's output and results, for the caller to check.
// The test must not be parallel: it changes GOMAXPROCS.
func SameOnAnyProcessors(t *testing.T, f krmfn.Function, in []byte) (out []byte, results string) {
	t.Helper()
	env := Env(Clock, nil)
	run := func(procs int) ([]byte, string) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out, rs := krmfn.Process(f, in, env)
		return out, fmt.Sprint(rs)
	}
	out, results = run(1)
	for _, procs := range []int{2, 4} {
		o, r := run(procs)
		if diff := cmp.Diff(results, r); diff != "" {
			t.Errorf("GOMAXPROCS=%d: results (-one +several):\n%s", procs, diff)
		}
		if !bytes.Equal(out, o) {
			t.Errorf("GOMAXPROCS=%d: the output differs from one goroutine's", procs)
		}
	}
	return out, results
}
