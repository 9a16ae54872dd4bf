package deps

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/deps/params"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// stackParams is the stack's parameter layers: its Parameters items in
// order, base first, then ResolveDeps.parameters, the user's top layer;
// with how to point a problem at the definition it is about.
type stackParams struct {
	layers []params.Layer
	where  []func(index int, r result.Result) result.Result
}

// readParameters reads the package's Parameters items (not in-cluster
// ones), in order, as the stack's layers, and the config's parameters as
// its top layer.
func readParameters(rl *resourcelist.ResourceList, cfg *config) (*stackParams, []result.Result) {
	sp := &stackParams{}
	var rs []result.Result
	for _, it := range rl.Select(func(h resourcelist.Header) bool { return isType(h, v1alpha1.TypeParameters) && !h.InCluster() }) {
		h := it.Header()
		var spec v1alpha1.ParametersSpec
		if bad := decodeSpec(it, &spec); len(bad) > 0 {
			rs = append(rs, bad...)
			continue
		}
		bad := false
		for _, e := range spec.Validate("spec.parameters") {
			rs, bad = append(rs, it.Errorf(e.Path, "%s: %s: %s", h.Where(), h, e)), true
		}
		if bad {
			continue
		}
		sp.layers = append(sp.layers, params.Layer{Source: h.String(), Params: spec.Parameters})
		sp.where = append(sp.where, func(i int, r result.Result) result.Result {
			r.Message = fmt.Sprintf("%s: %s: %s", h.Where(), h, r.Message)
			return h.Attach(r.WithField(fmt.Sprintf("spec.parameters[%d]", i)))
		})
	}
	top, errs := flatten(cfg.Parameters)
	for _, e := range errs {
		rs = append(rs, cfg.problem(e.Path, e.Msg))
	}
	sp.layers = append(sp.layers, params.Layer{Source: "ResolveDeps.parameters", Params: top})
	sp.where = append(sp.where, func(i int, r result.Result) result.Result {
		return r.WithField("parameters." + top[i].QName())
	})
	return sp, rs
}

// flatten turns the nested map of ResolveDeps.parameters into user
// parameters with dotted names; a key `name|package` qualifies one.
func flatten(m map[string]any) ([]v1alpha1.Parameter, []decode.Error) {
	var (
		out  []v1alpha1.Parameter
		errs []decode.Error
	)
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			name := prefix + k
			switch v := m[k].(type) {
			case map[string]any:
				walk(name+".", v)
				continue
			case []any:
				errs = append(errs, decode.Error{Path: "parameters." + name, Msg: "a list cannot be a parameter value: give a scalar, or a mapping of them"})
				continue
			}
			value := ""
			if v := m[k]; v != nil {
				value = fmt.Sprint(v)
			}
			p := v1alpha1.Parameter{Name: name, Kind: v1alpha1.ParameterUser, Value: decode.AnyScalar(value)}
			if n, c, ok := strings.Cut(name, "|"); ok {
				p.Name, p.Component = n, c
			}
			for _, e := range p.Validate("parameters." + name) {
				errs = append(errs, decode.Error{Path: "parameters." + name, Msg: e.Msg})
			}
			if p.Value == "" {
				p.Empty = v1alpha1.EmptyAllow
			}
			out = append(out, p)
		}
	}
	walk("", m)
	return out, errs
}

// attach points a parameter problem at the definition it is about.
func (sp *stackParams) attach(pr params.Problem, offset int) result.Result {
	r := result.Errorf("%s", pr.Msg)
	if pr.At == nil || pr.At.Layer < offset {
		return r
	}
	return sp.where[pr.At.Layer-offset](pr.At.Index, r)
}

// conditions locks the stack's layers alone, for conditional requirements,
// which are read before the plan (and so before the packages' own
// parameters) is known.
func (sp *stackParams) conditions(env krmfn.Env) (map[string]any, []result.Result) {
	l, problems := params.Merge(sp.layers).Lock(env.Getenv)
	var rs []result.Result
	for _, pr := range problems {
		rs = append(rs, sp.attach(pr, 0))
	}
	return l.Conditions(), rs
}

// resolveParameters merges the plan's packages' own parameters (in install
// order) under the stack's layers, locks them, and resolves, for each
// package to install or upgrade, the parameters it declares: written into
// its step (with their source) and, unless secret, into its package
// context. A secret a package wants in its package context, which is
// committed to git, is an error.
func resolveParameters(plan *Plan, sp *stackParams, installed map[string]*Installed, env krmfn.Env) []result.Result {
	var layers []params.Layer
	for _, s := range plan.Steps {
		if d := plan.Declared[s.Package]; len(d) > 0 {
			layers = append(layers, params.Layer{Source: "package " + s.Package, Package: s.Package, Params: d})
		}
	}
	offset := len(layers)
	locked, problems := params.Merge(append(layers, sp.layers...)).Lock(env.Getenv)
	var rs []result.Result
	for _, pr := range problems {
		rs = append(rs, sp.attach(pr, offset))
	}
	plan.Context = map[string]map[string]string{}
	var outputs []params.Output
	for i, s := range plan.Steps {
		if s.Action == v1alpha1.ActionInstall || s.Action == v1alpha1.ActionUpgrade {
			resolved, problems := locked.Scope(s.Package, plan.Declared[s.Package], outputs)
			for _, pr := range problems {
				rs = append(rs, sp.attach(pr, offset))
			}
			plan.Steps[i].Parameters, plan.Context[s.Package], problems = stepParameters(s.Package, resolved)
			for _, pr := range problems {
				rs = append(rs, result.Errorf("%s", pr.Msg))
			}
		}
		if in := installed[s.Package]; in != nil && s.Action != v1alpha1.ActionSkip {
			for _, o := range in.Outputs {
				outputs = append(outputs, params.Output{Package: s.Package, Name: o.Name, Value: string(o.Value)})
			}
		}
	}
	return rs
}

// stepParameters lists a package's resolved parameters for its plan step
// and its package context: a parameter it declares secret is only named
// (it is supplied out of band); a secret value it wants in its package
// context is a problem; so is a reserved key.
func stepParameters(pkg string, resolved []params.Resolved) ([]v1alpha1.StepParameter, map[string]string, []params.Problem) {
	var (
		steps    []v1alpha1.StepParameter
		problems []params.Problem
		data     = map[string]string{}
	)
	for _, r := range resolved {
		switch {
		case r.Parameter.Secret:
			steps = append(steps, v1alpha1.StepParameter{Name: r.Name, Secret: true, Source: r.Source})
		case r.Secret:
			problems = append(problems, params.Problem{Msg: fmt.Sprintf("package %s: parameter %s is secret (its value comes from %s) but %s declares it for its package context, which is committed to git: declare it secret: true in %s's Parameters, to supply it out of band",
				pkg, r.Name, r.Source, pkg, pkg)})
		case slices.Contains(v1alpha1.ReservedContextKeys, r.Name):
			problems = append(problems, params.Problem{Msg: fmt.Sprintf("package %s: parameter %s would set the package context key %q, which kpt and Porch own: rename it", pkg, r.Name, r.Name)})
		default:
			steps = append(steps, v1alpha1.StepParameter{Name: r.Name, Value: r.Value, Source: r.Source})
			data[r.Name] = r.Value
		}
	}
	return steps, data, problems
}
