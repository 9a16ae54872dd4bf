package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// touch reads every item's header and changes nothing.
var touch = krmfn.Function{Name: "touch", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
	rl.Select(func(resourcelist.Header) bool { return true })
	return nil
}}

// steps is a package whose Kptfile runs touch n times over a ConfigMap.
func steps(n int) kptpkg.Files {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  - image: ghcr.io/kptkit/touch:v1\n    configMap: {step: %q}\n", fmt.Sprint(i))
	}
	return kptpkg.Files{"Kptfile": []byte(pipeline("steps", b.String())), "cm.yaml": []byte(cm("c"))}
}

var touchRuntime = render.Functions{Functions: []krmfn.Function{touch}}

// TestRenderStepsAreLinear: what Render does around each step (ids, paths,
// checks, results) does not grow with the number of steps, so twice the
// steps cost twice the allocations. (Each step is given the Kptfile among
// the items, as kpt gives it: a function that reads or serialises every
// item pays for the Kptfile's length at every step.)
func TestRenderStepsAreLinear(t *testing.T) {
	var allocs []float64
	for _, n := range []int{100, 200, 400} {
		in := steps(n)
		allocs = append(allocs, testing.AllocsPerRun(1, func() {
			out := render.Render(render.Input{Files: in}, render.Options{Runtime: touchRuntime})
			if out.Failure != nil || out.Executed != n {
				t.Fatalf("%d steps: executed %d, failure %v", n, out.Executed, out.Failure)
			}
		}))
	}
	t.Logf("allocations at 100, 200, 400 steps: %v", allocs)
	for i := 1; i < len(allocs); i++ {
		if allocs[i] > 2.2*allocs[i-1] {
			t.Errorf("allocations %v: more than double with the steps", allocs)
		}
	}
}

// TestRenderTooManySteps: a Kptfile of 1,001 functions is refused before
// any runs, naming the Kptfile and the bound; 1,000 run.
func TestRenderTooManySteps(t *testing.T) {
	t.Parallel()
	if out := render.Render(render.Input{Files: steps(kptpkg.MaxSteps)}, render.Options{Runtime: touchRuntime}); out.Failure != nil || out.Executed != kptpkg.MaxSteps {
		t.Errorf("1000 steps: executed %d, failure %v", out.Executed, out.Failure)
	}
	in := steps(kptpkg.MaxSteps + 1)
	in["sub/Kptfile"] = in["Kptfile"]
	out := render.Render(render.Input{Files: in}, render.Options{Runtime: touchRuntime})
	want := "Kptfile is invalid: field pipeline: holds 1001 functions, more than the 1000 kptkit runs from one Kptfile\n" +
		"sub/Kptfile is invalid: field pipeline: holds 1001 functions, more than the 1000 kptkit runs from one Kptfile"
	if out.Failure == nil || out.Failure.Message != want || out.Executed != 0 {
		t.Errorf("1001 steps: executed %d, failure %v, want %s", out.Executed, out.Failure, want)
	}
}

// BenchmarkRenderSteps renders a package of one ConfigMap through 1,000
// steps of a function run in process, and 100 and 200 of one given bytes
// (as a binary, a container or a built-in catalog function is: each step
// writes and reads the items, the growing Kptfile among them).
func BenchmarkRenderSteps(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
		rt   render.Runtime
	}{
		{"in-process/1000", 1000, touchRuntime},
		{"bytes/100", 100, bytesOnly{touchRuntime}},
		{"bytes/200", 200, bytesOnly{touchRuntime}},
	} {
		in := steps(c.n)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if out := render.Render(render.Input{Files: in}, render.Options{Runtime: c.rt}); out.Failure != nil {
					b.Fatal(out.Failure)
				}
			}
		})
	}
}
