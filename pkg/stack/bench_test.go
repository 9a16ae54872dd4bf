package stack_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/stack"
)

// bigPackage is a ResourceList of n resources as kpt passes them: a Kptfile,
// then Deployments, Services and ConfigMaps in files of three, with kpt's
// annotations; every Deployment is associated with its ConfigMap (when the
// package has it).
func bigPackage(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString("- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: big\n    annotations:\n      config.kubernetes.io/local-config: \"true\"\n      config.kubernetes.io/path: 'Kptfile'\n")
	for i := range n {
		file := fmt.Sprintf("app-%d.yaml", i/3)
		ann := fmt.Sprintf("    annotations:\n      config.kubernetes.io/index: '%d'\n      config.kubernetes.io/path: '%s'\n      internal.config.kubernetes.io/index: '%d'\n      internal.config.kubernetes.io/path: '%s'\n", i%3, file, i%3, file)
		app := fmt.Sprintf("app-%d", i/3)
		assoc := ""
		if i+2 < n {
			assoc = "    associations:\n    - kind: ConfigMap\n      name: " + app + "\n"
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: %s\n    namespace: prod\n    labels:\n      app: %s\n%s  spec:\n%s    replicas: 2\n    selector:\n      matchLabels:\n        app: %s\n    template:\n      metadata:\n        labels:\n          app: %s\n      spec:\n        containers:\n        - name: app\n          image: registry.example.com/app:v1.%d\n          ports:\n          - containerPort: 8080\n", app, app, ann, assoc, app, app, i)
		case 1:
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: %s\n    namespace: prod\n%s  spec:\n    selector:\n      app: %s\n    ports:\n    - port: 80\n      targetPort: 8080\n", app, ann, app)
		default:
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: %s\n    namespace: prod\n%s  data:\n    LOG_LEVEL: info\n    FEATURE_X: \"on\"\n", app, ann)
		}
	}
	return []byte(b.String())
}

// BenchmarkApply measures apply-stack over a 10,000-resource package, the
// first apply (no Stack yet) and an unchanged re-apply (the Stack the first
// wrote), each next to an identity pass over the same ResourceList: the cost
// of reading and writing it.
func BenchmarkApply(b *testing.B) {
	first := bigPackage(10000)
	env := krmtest.Env(krmtest.Clock, nil)
	again, results := krmfn.Process(stack.Function, first, env)
	if results.HasError() {
		b.Fatalf("first apply: %.300v", results)
	}
	for _, input := range []struct {
		name string
		in   []byte
	}{{"first", first}, {"reapply", again}} {
		for _, f := range []krmfn.Function{krmfn.Identity, stack.Function} {
			b.Run(input.name+"/"+f.Name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(input.in)))
				for b.Loop() {
					if _, rs := krmfn.Process(f, input.in, env); rs.HasError() {
						b.Fatal(rs)
					}
				}
			})
		}
	}
}

// An unchanged re-apply of the big package leaves its items byte-identical.
func TestBigReapplyUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("big package")
	}
	t.Parallel()
	env := krmtest.Env(krmtest.Clock, nil)
	out, results := krmfn.Process(stack.Function, bigPackage(900), env)
	if results.HasError() || len(results) == 0 || !strings.HasPrefix(results[0].Message, "created ") {
		t.Fatalf("first apply results: %.300v", results)
	}
	again, results := krmfn.Process(stack.Function, out, env)
	if len(results) != 1 || results[0].Message != "no changes" {
		t.Fatalf("re-apply results: %v", results)
	}
	if krmtest.ItemsOf(out) != krmtest.ItemsOf(again) {
		t.Error("an unchanged re-apply changed the items")
	}
}
