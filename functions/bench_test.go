package functions_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kptkit/kptkit/pkg/krmtest"
)

// BenchmarkBinary runs function binaries as kpt runs them (a ResourceList on
// stdin, the result on stdout, one process per run) next to the identity
// binary over the same input (and, for fan-out-variants' first run, the
// trivial SDK function of ../shared/bench/sdkid when it is there), and
// reports per run the wall time (ns/op), the CPU time (cpu-ms/op) and the
// peak resident memory (peak-MB).
//
//	go test ./functions -run '^$' -bench BenchmarkBinary -benchtime 5x
func BenchmarkBinary(b *testing.B) {
	bin := buildBinaries(b, "./fan-out-variants", "./apply-stack", "./internal/identity")
	fleet := krmtest.Fleet(10000)
	children := runBinary(b, filepath.Join(bin, "fan-out-variants"), fleet).out
	pkg := krmtest.StackPackage(10000)
	stacked := runBinary(b, filepath.Join(bin, "apply-stack"), pkg).out
	type run struct {
		name, path string
		in         []byte
	}
	var runs []run
	if _, err := os.Stat(filepath.Join(sharedBench, "sdkid")); err == nil {
		runs = append(runs, run{"fan-out-variants/sdk", buildSDK(b), fleet})
	}
	for _, c := range []struct {
		name, fn string
		in       []byte
	}{
		{"fan-out-variants/identity", "identity", fleet},
		{"fan-out-variants/first", "fan-out-variants", fleet},
		{"fan-out-variants/again/identity", "identity", children},
		{"fan-out-variants/again", "fan-out-variants", children},
		{"apply-stack/identity", "identity", pkg},
		{"apply-stack/first", "apply-stack", pkg},
		{"apply-stack/reapply/identity", "identity", stacked},
		{"apply-stack/reapply", "apply-stack", stacked},
	} {
		runs = append(runs, run{c.name, filepath.Join(bin, c.fn), c.in})
	}
	for _, r := range runs {
		b.Run(r.name, func(b *testing.B) { measure(b, r.path, r.in) })
	}
}

// buildBinaries builds the given packages of this folder into a temporary
// folder, which it returns.
func buildBinaries(b testing.TB, pkgs ...string) string {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command("go", append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

type binaryRun struct {
	out    []byte
	cpu    time.Duration
	peakKB int64
}

// gnuTime is GNU time, which the benchmarks run the binaries under when it
// is there: Linux counts the memory of the process that starts a binary in
// the binary's peak (the address space exec replaced), so a binary this
// big test process starts reports this process's size; one GNU time (a
// small process) starts reports its own.
var gnuTime = func() string {
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		return "/usr/bin/time"
	}
	return ""
}()

// runBinary runs a function binary over in; it must succeed.
func runBinary(b testing.TB, path string, in []byte) binaryRun {
	b.Helper()
	var out, stderr bytes.Buffer
	cmd := exec.Command(path)
	stats := ""
	if gnuTime != "" {
		f, err := os.CreateTemp("", "kptkit-bench-time-")
		if err != nil {
			b.Fatal(err)
		}
		stats = f.Name()
		f.Close()
		defer os.Remove(stats)
		cmd = exec.Command(gnuTime, "-f", "%U %S %M", "-o", stats, path)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%.2000s", filepath.Base(path), err, stderr.String())
	}
	r := binaryRun{out: out.Bytes(), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if stats == "" {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.peakKB = ru.Maxrss
		}
		return r
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		b.Fatal(err)
	}
	var user, sys float64
	if _, err := fmt.Sscan(string(data), &user, &sys, &r.peakKB); err != nil {
		b.Fatalf("GNU time's report %q: %v", data, err)
	}
	r.cpu = time.Duration((user + sys) * float64(time.Second))
	return r
}
