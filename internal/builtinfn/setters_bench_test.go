package builtinfn

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
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

// BenchmarkApplySetters runs apply-setters over 50 Deployments as the
// function runner and kptkit render run it.
func BenchmarkApplySetters(b *testing.B) {
	in := settersPackage(50)
	defer krmtest.CPU(b)()
	for b.Loop() {
		if _, exit := applySetters(in); exit.Code != 0 {
			b.Fatal(exit.Stderr)
		}
	}
}

func BenchmarkApplySettersBlock(b *testing.B) {
	in := []byte(strings.NewReplacer("{app: web, shard: \"", "\n      app: web\n      shard: \"", "\"}\n    annotations", "\"\n    annotations", "matchLabels: {app: web}", "matchLabels:\n        app: web", "labels: {app: web}", "labels:\n          app: web").Replace(string(settersPackage(50))))
	if testing.Verbose() {
		b.Log(string(in[:2000]))
	}
	defer krmtest.CPU(b)()
	for b.Loop() {
		if _, exit := applySetters(in); exit.Code != 0 {
			b.Fatal(exit.Stderr)
		}
	}
}
