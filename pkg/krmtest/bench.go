package krmtest

import (
	"fmt"
	"strings"
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

// Bench times f over in, reporting items per second.
func Bench(b *testing.B, f krmfn.Function, in []byte) {
	b.Helper()
	env := Env(Clock, nil)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, results := krmfn.Process(f, in, env); results.HasError() {
			b.Fatalf("%s failed: %v", f.Name, results)
		}
	}
}
