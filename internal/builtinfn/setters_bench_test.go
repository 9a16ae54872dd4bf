package builtinfn

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kptkit/kptkit/pkg/krmtest"
)

// settersPackage is a ResourceList as porch-server sends it for a package
// of n Deployments, each with a setter on its replicas and image, and the
// setters' ConfigMap: the function runner's benchmark input.
func settersPackage(n int) []byte {
	return krmtest.SettersPackage(n, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: setters}\ndata: {replicas: \"5\", tag: \"1.28\"}\n")
}

// BenchmarkApplySetters runs apply-setters over 50 Deployments in this
// process, as the function runner and kptkit render run it, against a fork
// and exec per call of the catalog's main (./apply-setters), measured in
// the same run: the median wall time of each (ns/op is the calls' mean),
// their CPU time, and the ratio of the medians. "flow" is the package as
// settersPackage writes it (labels and selectors in flow style, which
// yaml.v3 writes: pkg/resourcelist's emitter declines flow mappings);
// "block" the same in block style, which the emitter writes.
//
//	go test ./internal/builtinfn -run '^$' -bench BenchmarkApplySetters -benchtime 100x
func BenchmarkApplySetters(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "apply-setters")
	if out, err := exec.Command("go", "build", "-o", bin, "./apply-setters").CombinedOutput(); err != nil {
		b.Fatalf("go build ./apply-setters: %v\n%s", err, out)
	}
	flow := settersPackage(50)
	block := []byte(strings.NewReplacer("{app: web, shard: \"", "\n      app: web\n      shard: \"", "\"}\n    annotations", "\"\n    annotations",
		"matchLabels: {app: web}", "matchLabels:\n        app: web", "labels: {app: web}", "labels:\n          app: web").Replace(string(flow)))
	for _, c := range []struct {
		name string
		in   []byte
	}{{"flow", flow}, {"block", block}} {
		b.Run(c.name, func(b *testing.B) {
			var wall []time.Duration
			cpu0 := krmtest.ProcessCPU(b)
			for b.Loop() {
				t0 := time.Now()
				if _, exit := applySetters(c.in); exit.Code != 0 {
					b.Fatal(exit.Stderr)
				}
				wall = append(wall, time.Since(t0))
			}
			cpu := krmtest.ProcessCPU(b) - cpu0
			execWall, execCPU := krmtest.ForkExecs(b, bin, c.in, min(len(wall), 100))
			b.ReportMetric(ms(median(wall)), "ms/call")
			b.ReportMetric(ms(cpu)/float64(len(wall)), "cpu-ms/call")
			b.ReportMetric(ms(median(execWall)), "exec-ms/call")
			b.ReportMetric(ms(execCPU)/float64(len(execWall)), "exec-cpu-ms/call")
			b.ReportMetric(float64(median(execWall))/float64(median(wall)), "speedup")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
