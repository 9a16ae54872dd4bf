package main

import (
	"sync"
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
// a call; the child's for an exec), and the ratio of the medians. Then 64
// callers at once over both functions: no call may fail; calls per second.
//
//	go test ./cmd/kptkit -run '^$' -bench BenchmarkFunctionRunner
func BenchmarkFunctionRunner(b *testing.B) {
	bins := buildEquivBinaries(b)
	c := startFunctionRunner(b)
	calls := benchCalls(bins)
	for _, bc := range calls {
		b.Run(bc.name, func(b *testing.B) {
			req := &evaluator.EvaluateFunctionRequest{Image: bc.image, ResourceList: bc.in}
			call := func() {
				if _, err := c.EvaluateFunction(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
			call() // warm: the first call connects
			krmtest.ForkExecs(b, bc.binary, bc.in, 1)
			var apiWall []time.Duration
			cpu0 := krmtest.ProcessCPU(b)
			for b.Loop() {
				t0 := time.Now()
				call()
				apiWall = append(apiWall, time.Since(t0))
			}
			apiCPU := krmtest.ProcessCPU(b) - cpu0
			// The same number of forks and execs (at most 200), after the
			// loop: not in ns/op.
			execWall, execCPU := krmtest.ForkExecs(b, bc.binary, bc.in, min(len(apiWall), 200))
			b.ReportMetric(ms(median(apiWall)), "api-ms/call")
			b.ReportMetric(ms(apiCPU)/float64(len(apiWall)), "api-cpu-ms/call")
			b.ReportMetric(ms(median(execWall)), "exec-ms/call")
			b.ReportMetric(ms(execCPU)/float64(len(execWall)), "exec-cpu-ms/call")
			b.ReportMetric(float64(median(execWall))/float64(median(apiWall)), "speedup")
		})
	}
	b.Run("64-callers", func(b *testing.B) {
		const perCaller = 8
		var total int
		cpu0, t0 := krmtest.ProcessCPU(b), time.Now()
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
		b.ReportMetric(ms(krmtest.ProcessCPU(b)-cpu0)/float64(total), "cpu-ms/call")
	})
}
