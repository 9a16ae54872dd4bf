// Package krmtest runs a function over golden folders: each case folder under
// testdata/ holds the input ResourceList (resourcelist.yaml) and the whole
// expected output (expected.yaml, results included); a new case is a new
// folder, no Go code. `go test -update` rewrites the expected files.
//
// Every case also proves three properties of the function: it changed no
// item without calling Edit, its output is deterministic, and running it on
// its own output changes no item (unless the case has an error result).
package krmtest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden tests")

// Input and Expected are the file names of a case folder.
const (
	Input    = "resourcelist.yaml"
	Expected = "expected.yaml"
	EnvFile  = "env"
)

// Clock is the time golden tests run at, unless a case's env file sets NOW.
var Clock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Options tune a golden run.
type Options struct {
	// Rerun builds the input of the second run, which must change no item,
	// from the first run's input and output. The default is the output
	// itself; a function that consumes inputs (in-cluster items) needs them
	// given again, as a user's next run would: use WithInCluster.
	Rerun func(t *testing.T, in, out []byte) []byte
}

// Golden runs f over every case folder in dir.
func Golden(t *testing.T, dir string, f krmfn.Function) {
	t.Helper()
	GoldenWith(t, dir, f, Options{})
}

// GoldenWith runs f over every case folder in dir, with options.
func GoldenWith(t *testing.T, dir string, f krmfn.Function, opts Options) {
	t.Helper()
	cases, err := filepath.Glob(filepath.Join(dir, "*", Input))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases in %s (want %s/<case>/%s)", dir, dir, Input)
	}
	for _, in := range cases {
		caseDir := filepath.Dir(in)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			t.Parallel()
			RunCase(t, caseDir, f, opts)
		})
	}
}

// Update reports whether the test run rewrites expected outputs (-update).
func Update() bool { return *update }

// RunCase runs f over one case folder and compares with its expected output.
func RunCase(t *testing.T, caseDir string, f krmfn.Function, opts Options) {
	t.Helper()
	in, err := os.ReadFile(filepath.Join(caseDir, Input))
	if err != nil {
		t.Fatal(err)
	}
	env := ReadEnv(t, caseDir)
	got, results := Run(t, f, in, env)
	again, _ := Run(t, f, in, env)
	if !bytes.Equal(got, again) {
		t.Errorf("output differs between two runs on the same input:\n%s", cmp.Diff(string(got), string(again)))
	}
	wantPath := filepath.Join(caseDir, Expected)
	if *update {
		if err := os.WriteFile(wantPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("output mismatch for %s (-want +got):\n%s", caseDir, diff)
	}
	if results.HasError() {
		return
	}
	next := got
	if opts.Rerun != nil {
		next = opts.Rerun(t, in, got)
	}
	second, _ := Run(t, f, next, env)
	if diff := cmp.Diff(ItemsOf(got), ItemsOf(second)); diff != "" {
		t.Errorf("a second run changed items (-first +second):\n%s", diff)
	}
}

// Run runs f over in, failing the test if f changed an item it did not Edit.
func Run(t *testing.T, f krmfn.Function, in []byte, env krmfn.Env) ([]byte, result.List) {
	t.Helper()
	rl, err := resourcelist.Parse(in)
	if err != nil {
		out, results := krmfn.Process(f, in, env)
		return out, results
	}
	rl.Guard()
	krmfn.Apply(f, rl, env)
	if v := rl.GuardViolations(); len(v) > 0 {
		t.Errorf("%s changed items without calling Edit: %s", f.Name, strings.Join(v, ", "))
	}
	out, err := rl.Write()
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	return out, rl.Results()
}

// ItemsOf returns the output without its results section, which always
// comes last.
func ItemsOf(out []byte) string {
	s := string(out)
	if i := strings.Index(s, "\nresults:\n"); i >= 0 {
		return s[:i+1]
	}
	return s
}

// ReadEnv reads a case's env file (KEY=VALUE lines; NOW sets the clock in
// RFC 3339). Without one the clock is Clock and the environment is empty.
func ReadEnv(t *testing.T, caseDir string) krmfn.Env {
	t.Helper()
	vars := map[string]string{}
	now := Clock
	b, err := os.ReadFile(filepath.Join(caseDir, EnvFile))
	if err == nil {
		for line := range strings.Lines(string(b)) {
			k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
			if !ok || strings.HasPrefix(k, "#") {
				continue
			}
			if k == "NOW" {
				if now, err = time.Parse(time.RFC3339, v); err != nil {
					t.Fatalf("%s: NOW: %v", caseDir, err)
				}
				continue
			}
			vars[k] = v
		}
	}
	return Env(now, vars)
}

// Env returns an environment with a fixed clock and variables.
func Env(now time.Time, vars map[string]string) krmfn.Env {
	return krmfn.Env{
		Now:    func() time.Time { return now },
		Getenv: func(k string) string { return vars[k] },
	}
}

// WithInCluster is a Rerun for functions that consume in-cluster items: the
// output with the input's in-cluster items appended again (unless the output
// still holds in-cluster items).
func WithInCluster(t *testing.T, in, out []byte) []byte {
	t.Helper()
	src, err := resourcelist.Parse(in)
	if err != nil {
		return out
	}
	rl, err := resourcelist.Parse(out)
	if err != nil || len(rl.Select(resourcelist.Header.InCluster)) > 0 {
		return out
	}
	for _, it := range src.Select(resourcelist.Header.InCluster) {
		if _, err := rl.Append(it.Node().Copy(), ""); err != nil {
			t.Fatal(err)
		}
	}
	b, err := rl.Write()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
