package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// benchDir finds ../shared/bench above the working folder, or skips.
func benchDir(b *testing.B) string {
	b.Helper()
	wd, _ := os.Getwd()
	for dir := wd; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "shared", "bench", "fleet.py")); err == nil {
			return filepath.Join(dir, "shared", "bench")
		}
	}
	b.Skip("shared/bench is not above the checkout")
	return ""
}

// BenchmarkFleet renders ../shared/bench/fleet.py's fleet (--git: a
// 50-resource package whose pipeline runs apply-replacements, the set adding
// set-namespace) with the kptkit binary: the first render into an empty
// output, and a run over an output nothing changed; wall time (ns/op), CPU
// time and peak memory. 10,000 variants run when KPTKIT_BENCH_LARGE is set.
//
//	go test ./cmd/kptkit -run '^$' -bench BenchmarkFleet -benchtime 1x
func BenchmarkFleet(b *testing.B) {
	bench := benchDir(b)
	bin := filepath.Join(b.TempDir(), "kptkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	sizes := []int{1000}
	if os.Getenv("KPTKIT_BENCH_LARGE") != "" {
		sizes = append(sizes, 10000)
	}
	for _, n := range sizes {
		dir := b.TempDir()
		if out, err := exec.Command("python3", filepath.Join(bench, "fleet.py"), dir, fmt.Sprint(n), "50", "--git").CombinedOutput(); err != nil {
			b.Fatalf("fleet.py: %v\n%s", err, out)
		}
		out := filepath.Join(dir, "out")
		args := []string{"variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"), "--out", out}
		b.Run(fmt.Sprintf("first/%d", n), func(b *testing.B) {
			measure(b, func() { _ = os.RemoveAll(out) }, bin, args)
		})
		b.Run(fmt.Sprintf("again/%d", n), func(b *testing.B) {
			measure(b, func() {}, bin, args)
		})
	}
}

// measure runs the binary once per iteration (prepare first, untimed) and
// reports CPU time and peak memory beside the wall time.
func measure(b *testing.B, prepare func(), bin string, args []string) {
	var cpu time.Duration
	var peak int64
	for b.Loop() {
		b.StopTimer()
		prepare()
		b.StartTimer()
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%.3000s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss)
		}
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(peak)/1024, "peak-MB")
}
