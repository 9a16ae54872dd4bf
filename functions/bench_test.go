package functions_test

import (
	"bytes"
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
// binary over the same input, and reports per run the wall time (ns/op),
// the CPU time (cpu-ms/op) and the peak resident memory (peak-MB).
//
//	go test ./functions -run '^$' -bench BenchmarkBinary -benchtime 5x
func BenchmarkBinary(b *testing.B) {
	bin := buildBinaries(b, "./fan-out-variants", "./apply-stack", "./internal/identity")
	fleet := krmtest.Fleet(10000)
	children := runBinary(b, filepath.Join(bin, "fan-out-variants"), fleet).out
	pkg := krmtest.StackPackage(10000)
	stacked := runBinary(b, filepath.Join(bin, "apply-stack"), pkg).out
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
		b.Run(c.name, func(b *testing.B) {
			var cpu time.Duration
			var peak int64
			for b.Loop() {
				r := runBinary(b, filepath.Join(bin, c.fn), c.in)
				cpu += r.cpu
				peak = max(peak, r.peakKB)
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(peak)/1024, "peak-MB")
		})
	}
}

// buildBinaries builds the given packages of this folder into a temporary
// folder, which it returns.
func buildBinaries(b *testing.B, pkgs ...string) string {
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

// runBinary runs a function binary over in; it must succeed.
func runBinary(b *testing.B, path string, in []byte) binaryRun {
	b.Helper()
	var out, stderr bytes.Buffer
	cmd := exec.Command(path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%.2000s", filepath.Base(path), err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no resource usage for the process")
	}
	return binaryRun{
		out:    out.Bytes(),
		cpu:    cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		peakKB: ru.Maxrss,
	}
}
