package fleetio

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Renderer is kptkit render's runtime as the fleet's Renderer: each
// variant's package rendered by pkg/render with the Runtime the command
// builds (kptkit's own functions and the built-in catalog functions in
// process, images in a container engine when one answers). exec: entries
// are not run — a fleet's packages come from elsewhere — but skipped, each
// with a warning. One Renderer serves every variant.
type Renderer struct {
	// Runtime runs the pipelines' functions; no exec: entry reaches it.
	Runtime render.Runtime
	// Env is what kptkit's own functions see.
	Env krmfn.Env
	// Watch bounds each step of kptkit's own functions (render.Options).
	Watch func(step func()) error
}

var _ fleet.Renderer = Renderer{}

// Render implements fleet.Renderer: the package's files, the items as the
// variant changed them and as read before go in; the rendered files come
// out with the steps' results, each message led by its function, or on
// failure the step and the function's own message.
func (r Renderer) Render(files kptpkg.Files, items, before []*yaml.RNode) (kptpkg.Files, result.List, error) {
	out := render.Render(render.Input{Files: files, Items: items, Before: before}, render.Options{
		Runtime:   render.Runtimes{skipExec{}, r.Runtime},
		Env:       r.Env,
		Watch:     r.Watch,
		AllowExec: true, // every exec: entry is skipExec's
	})
	rs := out.Results.List()
	if out.Failure != nil {
		return nil, rs, out.Failure
	}
	return out.Files, rs, nil
}

// skipExec takes every exec: entry of a fleet's package and runs it as a
// step that changes nothing and warns that it was skipped.
type skipExec struct{}

// Runner implements render.Runtime for exec: entries.
func (skipExec) Runner(fn render.Function) (render.Runner, error) {
	if fn.Exec == "" {
		return nil, &render.Unhandled{}
	}
	return render.InProcess{Function: krmfn.Function{Name: "exec", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		rl.AddResults(result.Warningf("exec: entries are not run by variants render (its packages come from elsewhere): skipped"))
		return nil
	}}}, nil
}
