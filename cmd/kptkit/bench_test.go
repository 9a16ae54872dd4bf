package main

import (
	"bytes"
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
// output, a run over an output nothing changed, and the set moved from
// revision 1 to 2 of the catalog (every package updated as kpt pkg update
// would, then rendered); wall time (ns/op), CPU time and peak memory.
// Beside them, kpt-fn-render: kpt fn render --allow-exec over 20 of the
// variants' packages one by one (the catalog's functions as exec binaries,
// as the equivalence tests run them), its per-package time and that time
// for the whole fleet. 10,000 variants run when KPTKIT_BENCH_LARGE is set.
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
		set := filepath.Join(dir, "variants", "app.yaml")
		v1, err := os.ReadFile(set)
		if err != nil {
			b.Fatal(err)
		}
		v2 := bytes.Replace(v1, []byte("revision: 1"), []byte("revision: 2"), 1)
		args := []string{"variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"), "--out", out}
		b.Run(fmt.Sprintf("first/%d", n), func(b *testing.B) {
			measure(b, func() { _ = os.RemoveAll(out) }, bin, args)
		})
		b.Run(fmt.Sprintf("again/%d", n), func(b *testing.B) {
			measure(b, func() {}, bin, args)
		})
		if n == sizes[0] {
			b.Run(fmt.Sprintf("kpt-fn-render/%d", n), func(b *testing.B) { kptFleet(b, out, n) })
		}
		b.Run(fmt.Sprintf("update-v1-v2/%d", n), func(b *testing.B) {
			measure(b, func() {
				b.StopTimer()
				_ = os.WriteFile(set, v1, 0o644)
				if o, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
					b.Fatalf("%v\n%.3000s", err, o)
				}
				_ = os.WriteFile(set, v2, 0o644)
			}, bin, args)
		})
	}
}

// kptFleet renders 20 of the fleet's rendered packages with kpt fn render
// --allow-exec, one by one as a script over the fleet would, and reports
// the median time per package and that time for the n packages.
func kptFleet(b *testing.B, out string, n int) {
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		b.Skip("kpt is not installed")
	}
	bins := buildEquivBinaries(b)
	pkgs, _ := filepath.Glob(filepath.Join(out, "*", "app"))
	if len(pkgs) > 20 {
		pkgs = pkgs[:20]
	}
	var walls []time.Duration
	var cpu time.Duration
	for b.Loop() {
		for _, p := range pkgs {
			b.StopTimer()
			dst := filepath.Join(b.TempDir(), "app")
			if err := os.CopyFS(dst, os.DirFS(p)); err != nil {
				b.Fatal(err)
			}
			toExec(b, dst, bins.catalog)
			b.StartTimer()
			w, c := timed(b, dst, kpt, "fn", "render", "--allow-exec")
			walls, cpu = append(walls, w), cpu+c
		}
	}
	per := median(walls)
	b.ReportMetric(ms(per), "ms/package")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(len(walls)), "cpu-ms/package")
	b.ReportMetric(per.Seconds()*float64(n), "s/fleet")
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

// BenchmarkProfileFleet is BenchmarkFleet's first render of 1,000
// variants (KPTKIT_BENCH_VARIANTS sets how many) run in the test's own
// process, for a profile of kptkit's own code (its name keeps it out of
// make bench's -bench=BenchmarkFleet):
//
//	go test ./cmd/kptkit -run '^$' -bench BenchmarkProfileFleet -benchtime 1x -cpuprofile cpu.out
//	go tool pprof -top cpu.out
func BenchmarkProfileFleet(b *testing.B) {
	bench := benchDir(b)
	n := 1000
	if s := os.Getenv("KPTKIT_BENCH_VARIANTS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			b.Fatalf("KPTKIT_BENCH_VARIANTS: %v", err)
		}
	}
	dir := b.TempDir()
	if out, err := exec.Command("python3", filepath.Join(bench, "fleet.py"), dir, fmt.Sprint(n), "50", "--git").CombinedOutput(); err != nil {
		b.Fatalf("fleet.py: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	args := []string{"kptkit", "variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"), "--out", out}
	for b.Loop() {
		b.StopTimer()
		_ = os.RemoveAll(out)
		b.StartTimer()
		var stdout, stderr bytes.Buffer
		if code := run(args, nil, &stdout, &stderr); code != 0 {
			b.Fatalf("exit %d\n%.3000s", code, stderr.String())
		}
	}
}
