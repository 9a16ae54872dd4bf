package inject_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// benchList is a ResourceList of items items: a Kptfile, points injection
// points (half ConfigMaps, half WorkloadClusters), candidates in-cluster
// objects (of both types, across four namespaces) and Deployments for the
// rest, with a PackageVariant of ten injectors.
func benchList(items, points, candidates int) []byte {
	var docs []string
	docs = append(docs, kf)
	for i := range points {
		if i%2 == 0 {
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: point-%d\n  annotations:\n    %s\n    config.kubernetes.io/path: points/cm-%d.yaml\ndata:\n  db: example", i, point, i))
		} else {
			docs = append(docs, fmt.Sprintf("apiVersion: infra.nephio.org/v1alpha1\nkind: WorkloadCluster\nmetadata:\n  name: point-%d\n  annotations:\n    kpt.dev/config-injection: optional\n    config.kubernetes.io/path: points/wc-%d.yaml\nspec:\n  clusterName: example", i, i))
		}
	}
	namespaces := []string{"default", "team-a", "team-b", "team-c"}
	for i := range candidates {
		ns := namespaces[(i/2)%len(namespaces)]
		if i%2 == 0 {
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: source-%d\n  namespace: %s\n  annotations:\n    %s\ndata:\n  db: db-%d.example.com\n  cache: cache-%d.example.com", i, ns, inCluster, i, i))
		} else {
			docs = append(docs, fmt.Sprintf("apiVersion: infra.nephio.org/v1alpha1\nkind: WorkloadCluster\nmetadata:\n  name: source-%d\n  namespace: %s\n  annotations:\n    %s\nspec:\n  clusterName: cluster-%d\n  cnis: [macvlan, ipvlan, sriov]\n  masterInterface: eth1", i, ns, inCluster, i))
		}
	}
	for i := len(docs); i < items; i++ {
		docs = append(docs, fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%d\n  annotations:\n    config.kubernetes.io/path: apps/app-%d.yaml\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: example.com/app:%d", i, i, i))
	}
	var injectors []string
	for i := range 10 {
		injectors = append(injectors, fmt.Sprintf("name: source-%d", 100+i*41))
	}
	injectors = append(injectors, "kind: WorkloadCluster\n    name: source-1", "kind: ConfigMap\n    name: source-0")
	return resourceList(pv("", injectors...), docs...)
}

// BenchmarkFunction runs inject-config over 5,000 items (200 injection
// points, 1,000 in-cluster candidates), and, as the baseline, the identity
// function over the same list: the difference is the function's own cost.
func BenchmarkFunction(b *testing.B) {
	in := benchList(5000, 200, 1000)
	env := krmtest.Env(krmtest.Clock, nil)
	if _, rs := krmfn.Process(inject.Function, in, env); rs.HasError() || len(rs) != 200 || !strings.Contains(rs[0].Message, "injected resource") {
		b.Fatalf("benchmark input does not inject: %d results, first %v", len(rs), rs[0])
	}
	for _, f := range []krmfn.Function{krmfn.Identity, inject.Function} {
		b.Run(f.Name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			defer krmtest.CPU(b)()
			for b.Loop() {
				krmfn.Process(f, in, env)
			}
		})
	}
}
