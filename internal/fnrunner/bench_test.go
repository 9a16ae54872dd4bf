package fnrunner

import (
	"context"
	"testing"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/render"
)

// benchInput is set-package-context's config over a package of 50
// Deployments, as kpt sends it.
var benchInput = krmtest.Package(50, "apiVersion: fn.kptkit.dev/v1alpha1\nkind: SetPackageContext\nmetadata: {name: ctx}\ndata: {zone: b, env: prod}\ncreate: true\n")

// BenchmarkServer measures what the server adds to a function: the
// function alone (krmfn.Process, as its binary runs it), then through the
// handler (the runner's look-up, a slot, the step limit), then through
// gRPC on loopback TCP with a client as porch-server dials; CPU time per
// call beside wall time.
func BenchmarkServer(b *testing.B) {
	env := krmtest.Env(krmtest.Clock, nil)
	opts := Options{Runtime: render.Runtimes{render.Functions{Functions: []krmfn.Function{pkgcontext.Function}, Env: env}},
		Env: env, Jobs: 2, Limits: bounded.Limits{Time: 120e9}}
	req := &evaluator.EvaluateFunctionRequest{Image: "ghcr.io/kptkit/set-package-context:v1", ResourceList: benchInput}
	b.Run("function", func(b *testing.B) {
		defer krmtest.CPU(b)()
		for b.Loop() {
			krmfn.Process(pkgcontext.Function, benchInput, env)
		}
	})
	b.Run("handler", func(b *testing.B) {
		srv, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		defer krmtest.CPU(b)()
		for b.Loop() {
			if _, err := srv.EvaluateFunction(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("grpc", func(b *testing.B) {
		c := start(b, opts)
		defer krmtest.CPU(b)()
		for b.Loop() {
			if _, err := c.EvaluateFunction(b.Context(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
