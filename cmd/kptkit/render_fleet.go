package main

import (
	"maps"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// fleetRenderer renders each variant's package with kptkit render's
// runtime (kptkit's own functions and the built-in catalog functions in
// process, images in a container engine when one answers). exec: entries
// are not run — a fleet's packages come from elsewhere — but skipped, each
// with a warning. One runtime serves every variant.
type fleetRenderer struct{ opts render.Options }

func newFleetRenderer(prefixes []string, execFor map[string]string, limits bounded.Limits) (fleet.Renderer, error) {
	return fleetRenderer{render.Options{
		Runtime:   render.Runtimes{skipExec{}, newRuntime(os.Environ(), prefixes, execFor, limits)},
		Env:       functions.Env(),
		Watch:     watch(limits),
		AllowExec: true, // every exec: entry is skipExec's
	}}, nil
}

// skipExec takes every exec: entry of a fleet's package and runs it as a
// step that changes nothing and warns that it was skipped.
type skipExec struct{}

func (skipExec) Runner(fn render.Function) (render.Runner, error) {
	if fn.Exec == "" {
		return nil, &render.Unhandled{}
	}
	return render.InProcess{Function: krmfn.Function{Name: "exec", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		rl.AddResults(result.Warningf("exec: entries are not run by variants render (its packages come from elsewhere): skipped"))
		return nil
	}}}, nil
}

// renderSalt is what of the runtime's set-up goes into every variant's
// inputs digest: packages rendered with other images mapped are rendered
// again.
func renderSalt(on bool, prefixes []string, execFor map[string]string) string {
	if !on || len(prefixes) == 0 && len(execFor) == 0 {
		return ""
	}
	s := " prefixes=" + strings.Join(prefixes, ",")
	for _, k := range slices.Sorted(maps.Keys(execFor)) {
		s += " " + k + "=" + execFor[k]
	}
	return s
}

// Render implements fleet.Renderer: the steps' results, each message led
// by its function, and on failure the step and the function's own message.
func (r fleetRenderer) Render(files kptpkg.Files, items, before []*yaml.RNode) (kptpkg.Files, result.List, error) {
	out := render.Render(render.Input{Files: files, Items: items, Before: before}, r.opts)
	var rs result.List
	for _, step := range out.Results.Items {
		name := step.Image
		if name == "" {
			name = step.Exec
		}
		for _, fr := range step.Results {
			if fr == nil {
				continue
			}
			res := result.New(result.Severity(fr.Severity), "%s: %s", name, fr.Message)
			if fr.Severity == "" {
				res.Severity = result.SeverityInfo
			}
			if ref := fr.ResourceRef; ref != nil {
				res = res.WithRef(result.ResourceRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, Namespace: ref.Namespace})
			}
			if fr.Field != nil {
				res = res.WithField(fr.Field.Path)
			}
			if fr.File != nil {
				res = res.WithFile(fr.File.Path, fr.File.Index)
			}
			rs = append(rs, res)
		}
	}
	if out.Failure != nil {
		return nil, rs, out.Failure
	}
	return out.Files, rs, nil
}
