package scan

import (
	"fmt"
	"strings"
	"testing"
)

// benchList is a ResourceList of n Deployments as kpt writes them (as
// krmtest.Package does, which this package cannot import).
func benchList(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
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
	b.WriteString("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: ctx}\n")
	return []byte(b.String())
}

// BenchmarkScan splits a list of 50 Deployments and scans every item's
// entry, as the lazy reading does before a function runs: the cost per
// line of Split and Scanner.Scan.
func BenchmarkScan(b *testing.B) {
	in := benchList(50)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var s Scanner
	for b.Loop() {
		l, ok := Split(in)
		if !ok {
			b.Fatal("not split")
		}
		s.NoTabs = l.NoTabs
		for _, e := range l.Entries {
			if !s.Scan(in, int(e.Start), int(e.End), l.SeqCol) {
				b.Fatal("not sure")
			}
		}
	}
}
