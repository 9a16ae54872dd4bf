package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// benchCalls are the two functions the function runner is measured with,
// each over a package of 50 Deployments: kptkit's set-package-context, and
// the built-in apply-setters with a setter on every Deployment's replicas
// and image.
func benchCalls(bins equivBinaries) []benchCall {
	return []benchCall{
		{"set-package-context", "ghcr.io/kptkit/set-package-context:v1", bins.dir + "/bin/set-package-context",
			krmtest.SettersPackage(50, "apiVersion: fn.kptkit.dev/v1alpha1\nkind: SetPackageContext\nmetadata: {name: ctx}\ndata: {zone: b, env: prod}\ncreate: true\n")},
		{"apply-setters", "ghcr.io/kptdev/krm-functions-catalog/apply-setters:v0.2.0", bins.catalog["apply-setters"],
			krmtest.SettersPackage(50, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: setters}\ndata: {replicas: \"5\", tag: \"1.28\"}\n")},
	}
}

// benchCall is a function called through the API, by its image, and run
// as its binary.
type benchCall struct {
	name, image, binary string
	in                  []byte
}

// BenchmarkFunctionRunner measures a call through the API (a client as
// porch-server dials and kptkit function-runner, both in this process,
// over loopback TCP) against a fork and exec of the same function's binary
// per call (what Porch's exec evaluator does), for set-package-context and
// apply-setters over 50 resources: the median wall time of each (ns/op is
// the calls' mean), their CPU time (this process's, client and server, for
// a call; the child's for an exec), and the ratio of the medians. Then the
// same for set-package-context with the kptkit binary serving in a process
// of its own, as Porch deploys it (own-process: the CPU time is both
// processes'). Then 64 callers at once over both functions, in process: no
// call may fail; calls per second.
//
//	go test ./cmd/kptkit -run '^$' -bench BenchmarkFunctionRunner
func BenchmarkFunctionRunner(b *testing.B) {
	bins := buildEquivBinaries(b)
	c := startFunctionRunner(b)
	cpu := func() time.Duration { return krmtest.ProcessCPU(b) }
	calls := benchCalls(bins)
	for _, bc := range calls {
		b.Run(bc.name, func(b *testing.B) { measureCalls(b, c, cpu, bc) })
	}
	b.Run(calls[0].name+"/own-process", func(b *testing.B) {
		own, serverCPU := startFunctionRunnerProcess(b, bins.dir+"/kptkit")
		measureCalls(b, own, func() time.Duration { return krmtest.ProcessCPU(b) + serverCPU() }, calls[0])
	})
	b.Run("64-callers", func(b *testing.B) {
		const perCaller = 8
		var total int
		cpu0, t0 := cpu(), time.Now()
		for b.Loop() {
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for i := range 64 {
				bc := calls[i%len(calls)]
				wg.Go(func() {
					for range perCaller {
						if _, err := c.EvaluateFunction(b.Context(), &evaluator.EvaluateFunctionRequest{Image: bc.image, ResourceList: bc.in}); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				b.Fatalf("a call of 64 at once failed: %v", err)
			}
			total += 64 * perCaller
		}
		b.ReportMetric(float64(total)/time.Since(t0).Seconds(), "calls/s")
		b.ReportMetric(ms(cpu()-cpu0)/float64(total), "cpu-ms/call")
	})
}

// measureCalls calls bc's function through c in a loop, then forks and
// execs its binary as often (at most 200 times, after the loop: not in
// ns/op), and reports the medians, the CPU time a call (cpu's, read before
// and after the loop) and the ratio of the medians.
func measureCalls(b *testing.B, c evaluator.FunctionEvaluatorClient, cpu func() time.Duration, bc benchCall) {
	req := &evaluator.EvaluateFunctionRequest{Image: bc.image, ResourceList: bc.in}
	call := func() {
		if _, err := c.EvaluateFunction(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
	call() // warm: the first call connects
	krmtest.ForkExecs(b, bc.binary, bc.in, 1)
	var apiWall []time.Duration
	cpu0 := cpu()
	for b.Loop() {
		t0 := time.Now()
		call()
		apiWall = append(apiWall, time.Since(t0))
	}
	apiCPU := cpu() - cpu0
	execWall, execCPU := krmtest.ForkExecs(b, bc.binary, bc.in, min(len(apiWall), 200))
	b.ReportMetric(ms(median(apiWall)), "api-ms/call")
	b.ReportMetric(ms(apiCPU)/float64(len(apiWall)), "api-cpu-ms/call")
	b.ReportMetric(ms(median(execWall)), "exec-ms/call")
	b.ReportMetric(ms(execCPU)/float64(len(execWall)), "exec-cpu-ms/call")
	b.ReportMetric(float64(median(execWall))/float64(median(apiWall)), "speedup")
}

// startFunctionRunnerProcess starts `kptkit function-runner` (the binary
// bin) on a free loopback port, ends it with SIGTERM when the benchmark
// ends, and returns a client dialled as porch-server dials, and the CPU
// time the server's process has used so far (user and system).
func startFunctionRunnerProcess(b *testing.B, bin string) (evaluator.FunctionEvaluatorClient, func() time.Duration) {
	b.Helper()
	cmd := exec.Command(bin, "function-runner", "--address", "127.0.0.1:0")
	logs, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(logs)
	var addr string
	for addr == "" && lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "serving FunctionEvaluator on "); ok {
			addr, _, _ = strings.Cut(rest, " ")
		}
	}
	if addr == "" {
		b.Fatalf("kptkit function-runner did not say where it serves: %v", lines.Err())
	}
	go func() { // a line a call: read, or the server would block on its log
		for lines.Scan() {
		}
	}()
	stat := fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)
	return dialEvaluator(b, addr), func() time.Duration { return procCPU(b, stat) }
}

// procCPU reads a process's CPU time (user and system) from its
// /proc/<pid>/stat, in clock ticks of 10 ms (Linux's USER_HZ).
func procCPU(b *testing.B, stat string) time.Duration {
	b.Helper()
	data, err := os.ReadFile(stat)
	if err != nil {
		b.Fatalf("cannot read the server's CPU time: %v", err)
	}
	// The fields after the command's name, which ends with the last ")":
	// state is the first, utime the 12th and stime the 13th.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	var utime, stime int64
	if _, err := fmt.Sscan(fields[11]+" "+fields[12], &utime, &stime); err != nil {
		b.Fatalf("cannot read the server's CPU time in %q: %v", data, err)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
