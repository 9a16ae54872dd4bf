// Package stack makes applying a kpt package idempotent, as InfluxDB's pkger
// stacks do: a ResourceList and Options go in; out come the package's Stack
// item (fn.kptkit.dev/v1alpha1, local config) recording, for every tracked
// resource, its identity, a stable id, a checksum and the content it was
// applied with, and its associations, and one result per change (created,
// updated, deleted, or "no changes"). A re-apply of the same package leaves
// the Stack byte-identical; a package with any error is refused and nothing
// changes. A dry run (Preview) works the apply out and reports pkger's diff
// and summary without changing anything.
package stack

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Function is apply-stack.
var Function = krmfn.Function{Name: "apply-stack", Run: Run}

// Run reads the options from the functionConfig and the environment, and
// applies the package to its stack (or, with ApplyStack.dryRun, reports
// what applying it would change).
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
// nothing changes. With opts.DryRun nothing changes either: the results say
// what would.
func Apply(rl *resourcelist.ResourceList, opts Options) ([]result.Result, error) {
	s, rs := prepare(rl, opts, false)
	switch {
	case s == nil:
		return rs, nil
	case opts.DryRun:
		p, bad := s.preview()
		if bad != nil {
			return append(rs, *bad), nil
		}
		return append(rs, p.results(s.target)...), nil
	}
	return s.apply(rl, rs)
}

// Uninstall is pkger's UninstallStack: an apply of an empty package. Every
// resource the Stack tracks is deleted from the record, which keeps the
// stack itself (its id, eventType uninstall, no resources). The package's
// items are not touched.
func Uninstall(rl *resourcelist.ResourceList, opts Options) ([]result.Result, error) {
	s, rs := prepare(rl, opts, true)
	if s == nil {
		return rs, nil
	}
	return s.apply(rl, rs)
}

// state is an apply worked out: the package read and checked, the record
// planned.
type state struct {
	opts      Options
	target    *target
	all       []*resource // every tracked item, pkger's rules ran on them
	tracked   []*resource // those the record tracks, in package order
	uninstall bool
	next      v1alpha1.StackStatus
	changes   []Change
	// recorded says the record changes beyond the resources: the missing
	// references, or the stack event.
	recorded bool
}

// prepare reads and checks the package and plans the record. It returns
// nil when the apply is refused (the results say why) or there is nothing
// to do; the results hold any warnings too. For an uninstall the package's
// resources are neither read nor checked.
func prepare(rl *resourcelist.ResourceList, opts Options, uninstall bool) (*state, []result.Result) {
	s := &state{opts: opts, uninstall: uninstall}
	var problems []result.Result
	if !uninstall {
		all, tracked, bad := collect(rl, opts.Env)
		problems = validate(all, tracked, bad)
		s.all, s.tracked = all, tracked
	}
	t, bad := findTarget(rl, opts.Stack)
	if problems = append(problems, bad...); result.List(problems).HasError() {
		return nil, problems
	}
	if t.item == nil && (uninstall || len(s.tracked) == 0) {
		if uninstall {
			problems = append(problems, result.Errorf("the package has no Stack to uninstall"))
		}
		return nil, problems // nothing to track, and no record to keep
	}
	s.target = t
	s.plan()
	return s, problems
}

// plan works out the new record and the changes.
func (s *state) plan() {
	old := s.target.record.Status
	s.next, s.changes = plan(old, s.tracked, s.target.name, s.opts.Now)
	env, secrets := s.missing()
	event := old.EventType
	if s.uninstall {
		event = v1alpha1.EventUninstall
	} else if len(s.changes) > 0 {
		event = ""
	}
	s.recorded = !slices.Equal(env, old.MissingEnvRefs) || !slices.Equal(secrets, old.MissingSecrets) || event != old.EventType
	if len(s.changes) == 0 && s.recorded {
		s.next = stamp(old, slices.Clone(old.Resources), s.target.name, s.opts.Now)
	}
	s.next.MissingEnvRefs, s.next.MissingSecrets, s.next.EventType = env, secrets, event
}

// changed reports whether the record changes.
func (s *state) changed() bool { return len(s.changes) > 0 || s.recorded }

// apply writes the planned record and reports the changes.
func (s *state) apply(rl *resourcelist.ResourceList, rs []result.Result) ([]result.Result, error) {
	t := s.target
	if !s.changed() {
		return append(rs, t.item.Infof("no changes")), nil
	}
	var (
		w   contentWriter
		big bool
	)
	applied, err := encodeApplied(s.next.Resources, func(i int, out io.Writer) error {
		big = big || s.tracked[i].content == nil
		return s.tracked[i].writeContent(&w, out)
	})
	if err != nil {
		return nil, fmt.Errorf("cannot encode the last-applied contents: %w", err)
	}
	if big {
		// A big content's nodes are garbage now: collect them before the
		// record is joined and encoded, rather than hold them beside it.
		runtime.GC()
	}
	s.next.LastApplied = applied.String()
	if err := t.write(rl, s.next); err != nil {
		return nil, err
	}
	rs = append(rs, report(s.changes, t)...)
	if msg := s.recordMessage(); s.recorded && msg != "" {
		rs = append(rs, s.recordResult(msg))
	}
	return rs, nil
}

// missing returns the keys of the environment references the options give
// no value for, and of the secrets they do not name, sorted.
func (s *state) missing() (env, secrets []string) {
	for _, r := range s.all {
		if r.refs == nil {
			continue
		}
		for _, ref := range r.refs.Refs {
			switch {
			case ref.Env != "" && !ref.Given(s.opts.Env):
				env = append(env, ref.Env)
			case ref.Secret != "" && !slices.Contains(s.opts.Secrets, ref.Secret):
				secrets = append(secrets, ref.Secret)
			}
		}
	}
	slices.Sort(env)
	slices.Sort(secrets)
	return slices.Compact(env), slices.Compact(secrets)
}

// recordResult is the result saying msg, what changed in the record beyond
// its resources.
func (s *state) recordResult(msg string) result.Result {
	r := result.Result{Severity: result.SeverityInfo, Message: msg}
	if s.target.item != nil {
		return s.target.item.Header().Attach(r)
	}
	return r.WithRef(result.ResourceRef{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindStack, Name: s.target.name}).WithFile(s.target.path, 0)
}

// recordMessage says what changed in the record beyond its resources; ""
// when that is only the uninstall event cleared by the changes an apply
// reports.
func (s *state) recordMessage() string {
	old := s.target.record.Status
	if s.next.EventType == v1alpha1.EventUninstall && old.EventType != v1alpha1.EventUninstall {
		return fmt.Sprintf("uninstalled Stack/%s", s.target.name)
	}
	if slices.Equal(s.next.MissingEnvRefs, old.MissingEnvRefs) && slices.Equal(s.next.MissingSecrets, old.MissingSecrets) {
		return ""
	}
	return fmt.Sprintf("recorded missingEnvRefs [%s], missingSecrets [%s]",
		strings.Join(s.next.MissingEnvRefs, " "), strings.Join(s.next.MissingSecrets, " "))
}

// report turns the changes into info results, each pointing at its
// resource (a deleted one at the Stack's file).
func report(changes []Change, t *target) []result.Result {
	out := make([]result.Result, 0, len(changes))
	for _, c := range changes {
		r := result.Result{Severity: result.SeverityInfo, Message: c.Message()}
		if c.res != nil {
			out = append(out, c.res.h.Attach(r))
			continue
		}
		e := c.Entry
		out = append(out, r.
			WithRef(result.ResourceRef{APIVersion: e.APIVersion, Kind: e.Kind, Name: e.PkgName, Namespace: e.Namespace}).
			WithFile(t.path, 0))
	}
	return out
}

// OwnedFiles returns the package's files that hold only resources its
// Stack tracks (what `kptkit stack uninstall --delete-files` removes),
// sorted: a file that also holds a Kptfile, a local-config item (the Stack
// itself), an in-cluster item or a resource the record does not know is
// kept.
func OwnedFiles(rl *resourcelist.ResourceList, opts Options) ([]string, error) {
	t, rs := findTarget(rl, opts.Stack)
	if errs := result.List(rs).Errors(); len(errs) > 0 {
		return nil, errs[0]
	}
	recorded := make(map[string]bool, len(t.record.Status.Resources))
	for _, e := range t.record.Status.Resources {
		recorded[e.Key()] = true
	}
	_, tracked, _ := collect(rl, opts.Env)
	owned := make(map[*resourcelist.Item]bool, len(tracked))
	for _, r := range tracked {
		owned[r.item] = recorded[r.key]
	}
	keep := map[string]bool{}
	files := map[string]bool{}
	for _, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
		p := it.Header().Path
		files[p] = true
		if !owned[it] {
			keep[p] = true
		}
	}
	var out []string
	for p := range files {
		if p != "" && !keep[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}
