package krmtest

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmfn"
)

// Package returns a ResourceList as kpt sends it for a package of n
// resources (Deployments and Services, with kpt's annotations), plus its
// Kptfile and package context, and the functionConfig fc ("" for none).
func Package(n int, fc string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString(`- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: app
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'Kptfile'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'Kptfile'
  info:
    description: a generated package
  pipeline:
    mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1
      configMap: {namespace: app}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kptfile.kpt.dev
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'package-context.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'package-context.yaml'
  data:
    name: app
`)
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
    replicas: 3
    selector:
      matchLabels: {app: web}
    template:
      metadata:
        labels: {app: web}
      spec:
        containers:
        - name: web
          image: "nginx:1.27"
          ports:
          - containerPort: 8080
          env:
          - {name: DEBUG, value: "no"}
`, i)
	}
	if fc != "" {
		b.WriteString("functionConfig:\n")
		for line := range strings.Lines(fc) {
			b.WriteString("  " + line)
		}
	}
	return []byte(b.String())
}

// Bench times f over in, reporting bytes per second, allocations and CPU
// time.
func Bench(b *testing.B, f krmfn.Function, in []byte) {
	b.Helper()
	env := Env(Clock, nil)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	defer CPU(b)()
	for b.Loop() {
		if _, results := krmfn.Process(f, in, env); results.HasError() {
			b.Fatalf("%s failed: %v", f.Name, results)
		}
	}
}

// CPU starts counting the process's CPU time (user and system, the garbage
// collector's included) and returns a function that reports it per
// operation as "cpu-ms/op". On a shared machine wall time moves with the
// neighbours' load; CPU time moves much less. Call the returned function
// after the b.Loop loop.
func CPU(b *testing.B) func() {
	b.Helper()
	start := cpuTime(b)
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
		}
	}
}

// cpuTime is the CPU time the process has used, in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("cannot read the CPU time: %v", err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
