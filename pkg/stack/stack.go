// Package stack makes applying a kpt package idempotent, as InfluxDB's pkger
// stacks do: a ResourceList and Options go in; out come the package's Stack
// item (fn.kptkit.dev/v1alpha1, local config) recording, for every tracked
// resource, its identity, a stable id, a checksum of its content and its
// associations, and one result per change (created, updated, deleted, or
// "no changes"). A re-apply of the same package leaves the Stack
// byte-identical; a package with any error is refused and nothing changes.
package stack

import (
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Function is apply-stack.
var Function = krmfn.Function{Name: "apply-stack", Run: Run}

// Run reads the options from the functionConfig and the environment, and
// applies the package to its stack.
func Run(rl *resourcelist.ResourceList, env krmfn.Env) error {
	opts, rs := OptionsFrom(krmfn.ConfigOf(rl), env)
	if len(rs) > 0 {
		rl.AddResults(rs...)
		return nil
	}
	rs, err := Apply(rl, opts)
	rl.AddResults(rs...)
	return err
}

// Apply records the package's tracked resources in its Stack and reports
// every change. Any problem refuses the whole apply: the results say why and
// nothing changes.
func Apply(rl *resourcelist.ResourceList, opts Options) ([]result.Result, error) {
	rs, bad := collect(rl)
	problems := append(bad, validate(rs)...)
	t, bad := findTarget(rl, opts.Stack)
	if problems = append(problems, bad...); len(problems) > 0 {
		return problems, nil
	}
	if t.item == nil && len(rs) == 0 {
		return nil, nil // nothing to track, and no record to keep
	}
	next, changes := plan(t.record.Status, rs, t.name, opts.Now)
	if len(changes) == 0 {
		return []result.Result{t.item.Infof("no changes")}, nil
	}
	if err := t.write(rl, next); err != nil {
		return nil, err
	}
	return report(changes, t), nil
}

// report turns the changes into info results, each pointing at its
// resource (a deleted one at the Stack's file).
func report(changes []Change, t *target) []result.Result {
	out := make([]result.Result, 0, len(changes))
	for _, c := range changes {
		r := result.Result{Severity: result.SeverityInfo, Message: c.Message()}
		if c.res != nil {
			out = append(out, c.res.item.Header().Attach(r))
			continue
		}
		e := c.Entry
		out = append(out, r.
			WithRef(result.ResourceRef{APIVersion: e.APIVersion, Kind: e.Kind, Name: e.PkgName, Namespace: e.Namespace}).
			WithFile(t.path, 0))
	}
	return out
}
