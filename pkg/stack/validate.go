package stack

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

// validate applies pkger's rules to the influxdata.com/v2alpha1 items (all
// of them, tracked or not) and resolves the tracked resources'
// associations. It returns the problems, the generic checks' (bad) giving
// way to pkger's on the same item and field; the resources get their
// associations recorded.
func validate(all, tracked []*resource, bad []problem) []result.Result {
	out, covered := validatePkger(all)
	for _, p := range bad {
		if !slices.ContainsFunc(covered[p.r], func(f string) bool { return within(f, p.field) || within(p.field, f) }) {
			out = append(out, p.result)
		}
	}
	return append(out, resolve(tracked, covered)...)
}

// validatePkger runs pkger's rules. It also returns the fields they found
// fault with, by resource, so that the other checks do not report the same
// problem twice.
func validatePkger(rs []*resource) ([]result.Result, map[*resource][]string) {
	var (
		objs  []pkger.Object
		owner []*resource
	)
	for _, r := range rs {
		if r.refs != nil {
			objs = append(objs, pkger.Object{Kind: r.h.Kind, Name: r.name, Root: root(r.h), Node: r.node, Problems: r.refs.Problems})
			owner = append(owner, r)
		}
	}
	var out []result.Result
	covered := map[*resource][]string{}
	for _, e := range pkger.Validate(objs) {
		r := owner[e.Object]
		msg := fmt.Sprintf("%s: %s: %s%s", r.h.Where(), name(r.h), e, fromEnv(r, e.Field))
		if e.Warning {
			out = append(out, r.h.Attach(result.Warningf("%s", msg).WithField(e.Field)))
			continue
		}
		if e.Field == "metadata.name" && strings.HasPrefix(e.Reason, `name "" is invalid`) {
			msg += nameHint(r.item.Node()) // metadta: did you mean metadata?
		}
		out = append(out, r.h.Attach(result.Errorf("%s", msg).WithField(e.Field)))
		covered[r] = append(covered[r], e.Field)
	}
	return out, covered
}

// fromEnv names the environment reference a faulty field's value came
// from: ` (the value of envRef "bucket-name")`, or "".
func fromEnv(r *resource, field string) string {
	if r.refs == nil {
		return ""
	}
	for _, ref := range r.refs.Refs {
		if ref.Env != "" && (within(ref.Field, field) || within(field, ref.Field)) {
			return fmt.Sprintf(" (the value of envRef %q)", ref.Env)
		}
	}
	return ""
}

// resolve finds the resource each association names (by kind and name; in
// the same namespace, then the same API group, when several match) and
// records the associations, sorted. Dangling, ambiguous and repeated
// associations are errors.
func resolve(rs []*resource, covered map[*resource][]string) []result.Result {
	type kindName struct{ kind, name string }
	byName := make(map[kindName][]*resource, len(rs))
	for _, r := range rs {
		k := kindName{r.h.Kind, r.name}
		byName[k] = append(byName[k], r)
	}
	var out []result.Result
	for _, r := range rs {
		var seen map[v1alpha1.StackAssociation]bool // a single association cannot repeat
		if len(r.links) > 1 {
			seen = make(map[v1alpha1.StackAssociation]bool, len(r.links))
		}
		r.entry.Associations = make([]v1alpha1.StackAssociation, 0, len(r.links))
		for _, l := range r.links {
			a := v1alpha1.StackAssociation{Kind: l.kind, PkgName: l.name}
			msg := ""
			switch targets := narrow(byName[kindName{l.kind, l.name}], r); {
			case len(targets) == 0:
				msg = "%s: %s is associated with %s, which is not in the package"
			case len(targets) > 1:
				msg = "%s: %s is associated with %s, which names several resources of the package (in other namespaces or API groups)"
			case seen[a]:
				msg = "%s: %s is associated with %s twice"
			}
			if seen != nil {
				seen[a] = true
			}
			if msg == "" {
				r.entry.Associations = append(r.entry.Associations, a)
			} else if !slices.ContainsFunc(covered[r], func(f string) bool { return within(f, l.field()) }) {
				out = append(out, r.h.Attach(result.Errorf(msg, r.h.Where(), name(r.h), a).WithField(l.field())))
			}
		}
		slices.SortFunc(r.entry.Associations, compareAssociations)
	}
	return out
}

// narrow picks, among the resources an association may name, those in the
// associating resource's namespace, then those of its API group.
func narrow(targets []*resource, from *resource) []*resource {
	for _, same := range []func(*resource) bool{
		func(t *resource) bool { return t.h.Namespace == from.h.Namespace },
		func(t *resource) bool { return t.h.Group() == from.h.Group() },
	} {
		if len(targets) <= 1 {
			break
		}
		if picked := filter(targets, same); len(picked) > 0 {
			targets = picked
		}
	}
	return targets
}

func filter(rs []*resource, keep func(*resource) bool) []*resource {
	var out []*resource
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// within reports whether the field path is parent or below it:
// spec.associations[0].kind is within spec.associations[0].
func within(path, parent string) bool {
	return path == parent || strings.HasPrefix(path, parent+".")
}

func compareAssociations(a, b v1alpha1.StackAssociation) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.PkgName, b.PkgName))
}
