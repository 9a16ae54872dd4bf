package builtinfn

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/render"
)

// starlarkPkg is a package whose one step runs a starlark program.
func starlarkPkg(program string) kptpkg.Files {
	return kptpkg.Files{
		"Kptfile": []byte(kf + "  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configPath: star.yaml\n"),
		"star.yaml": []byte("apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: s\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" +
			"source: |\n" + program),
		"cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
	}
}

// TestStarlarkTimeout: an endless starlark loop fails at the time limit.
func TestStarlarkTimeout(t *testing.T) {
	t.Parallel()
	rt := &Runtime{Limits: bounded.Limits{Time: 2 * time.Second, TimeFlag: "--step-timeout"}}
	out := render.Render(render.Input{Files: starlarkPkg("  def f():\n    for i in range(1000000000):\n      pass\n  f()\n")}, render.Options{Runtime: rt})
	want := "ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3 (pipeline.mutators[0]) failed: timed out after 2s (--step-timeout)"
	if out.Failure == nil || out.Failure.Error() != want {
		t.Errorf("failure %v, want %s", out.Failure, want)
	}
}

// TestStarlarkMemory: a starlark program that keeps allocating fails at
// the memory limit, and this process does not grow with it.
func TestStarlarkMemory(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit (cmd/kptkit's TestStepMemory runs a built kptkit)")
	}
	rt := &Runtime{Limits: bounded.Limits{Time: time.Minute, Memory: 256 << 20, MemoryFlag: "--step-memory"}}
	out := render.Render(render.Input{Files: starlarkPkg("  def f():\n    a = []\n    for i in range(1000000000):\n      a.append('x' * 100000 + str(i))\n  f()\n")}, render.Options{Runtime: rt})
	want := "ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3 (pipeline.mutators[0]) failed: exceeded the memory limit of 256MiB (--step-memory)"
	if out.Failure == nil || out.Failure.Error() != want {
		t.Errorf("failure %v, want %s", out.Failure, want)
	}
}

// TestStarlarkInChild: starlark runs in a child process, the other
// built-ins in this one.
func TestStarlarkInChild(t *testing.T) {
	t.Parallel()
	var got []string
	for _, f := range Functions {
		if f.child {
			got = append(got, f.Name)
		}
	}
	if diff := cmp.Diff([]string{"starlark"}, got); diff != "" {
		t.Error(diff)
	}
	if _, ok := Works()["starlark"]; !ok {
		t.Error("no work for starlark's child")
	}
}

// TestInProcessTimeout: a built-in that runs in this process and does not
// end is abandoned at the time limit; the render ends and says so.
func TestInProcessTimeout(t *testing.T) {
	t.Parallel()
	// The stuck run ends by itself, long after it was abandoned, within
	// the test: -race sees that its late writes touch nothing of Run's.
	ended := make(chan struct{})
	defer func() { <-ended }()
	stuck := &Function{Name: "stuck", Run: func([]byte) ([]byte, render.Exit) {
		defer close(ended)
		time.Sleep(time.Second)
		return []byte("late"), render.Exit{Code: 3}
	}}
	r := runner{stuck, &Runtime{Limits: bounded.Limits{Time: 100 * time.Millisecond, TimeFlag: "--step-timeout"}}}
	_, _, err := r.Run(nil)
	if err == nil || err.Error() != "timed out after 100ms (--step-timeout)" {
		t.Errorf("got %v", err)
	}
	ok := runner{&Function{Name: "ok", Run: func(in []byte) ([]byte, render.Exit) { return in, render.Exit{} }}, r.rt}
	if out, _, err := ok.Run([]byte("x")); err != nil || string(out) != "x" {
		t.Errorf("a built-in that ends: %q, %v", out, err)
	}
}
