package builtinfn

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// settersPackage is a ResourceList as porch-server sends it for a package
// of n Deployments, each with a setter on its replicas and image, and the
// setters' ConfigMap: the function runner's benchmark input.
func settersPackage(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString("- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: app\n    annotations:\n" +
		"      config.kubernetes.io/local-config: \"true\"\n      config.kubernetes.io/path: 'Kptfile'\n      internal.config.kubernetes.io/path: 'Kptfile'\n")
	for i := range n {
		fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web-%[1]d # the web tier
    namespace: app
    labels: {app: web, shard: "%[1]d"}
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'web/%[1]d.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'web/%[1]d.yaml'
  spec:
    replicas: 3 # kpt-set: ${replicas}
    selector:
      matchLabels: {app: web}
    template:
      metadata:
        labels: {app: web}
      spec:
        containers:
        - name: web
          image: "nginx:1.27" # kpt-set: nginx:${tag}
          ports:
          - containerPort: 8080
`, i)
	}
	b.WriteString("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: setters}\n  data: {replicas: \"5\", tag: \"1.28\"}\n")
	return []byte(b.String())
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
			cpu0 := selfCPU(b)
			for b.Loop() {
				t0 := time.Now()
				if _, exit := applySetters(c.in); exit.Code != 0 {
					b.Fatal(exit.Stderr)
				}
				wall = append(wall, time.Since(t0))
			}
			cpu := selfCPU(b) - cpu0
			var execWall []time.Duration
			var execCPU time.Duration
			for range min(len(wall), 100) {
				w, c := forkExec(b, bin, c.in)
				execWall, execCPU = append(execWall, w), execCPU+c
			}
			b.ReportMetric(ms(median(wall)), "ms/call")
			b.ReportMetric(ms(cpu)/float64(len(wall)), "cpu-ms/call")
			b.ReportMetric(ms(median(execWall)), "exec-ms/call")
			b.ReportMetric(ms(execCPU)/float64(len(execWall)), "exec-cpu-ms/call")
			b.ReportMetric(float64(median(execWall))/float64(median(wall)), "speedup")
		})
	}
}

// forkExec runs a function's binary once over in: its wall time and its
// CPU time.
func forkExec(b *testing.B, bin string, in []byte) (wall, cpu time.Duration) {
	b.Helper()
	cmd := exec.Command(bin)
	cmd.Stdin = bytes.NewReader(in)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%.2000s", bin, err, out.String())
	}
	return time.Since(t0), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// selfCPU is the CPU time this process has used (user and system).
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
