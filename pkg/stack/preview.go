package stack

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

// Preview is a dry run: what applying the package would do, worked out
// without changing anything. The record stands for the platform pkger
// compares with: its last-applied contents are each resource's old
// content.
type Preview struct {
	// Items are the package's tracked resources and the recorded ones it
	// no longer has, as the apply would leave the record: in package order,
	// the removed ones last.
	Items []Item
	// MissingEnvRefs and MissingSecrets are the references the options give
	// no value for, sorted.
	MissingEnvRefs, MissingSecrets []string
	changes                        []Change
	stack                          string
}

// Item is one resource of a Preview.
type Item struct {
	// Entry is the resource's record entry: the planned one (with the id
	// the apply would give it), or for a removed resource the recorded one.
	Entry v1alpha1.StackResource
	// Status is pkger's stateStatus: new, exists or remove.
	Status string
	// Old is the content last applied (nil when there is none on record),
	// New the content the apply records (nil for a removed resource).
	Old, New json.RawMessage
	// OldAssociations are the associations on record (nil for a new
	// resource).
	OldAssociations []v1alpha1.StackAssociation
	// Refs are the resource's references (pkger's items only).
	Refs []pkger.Ref
}

// pkger's stateStatus values.
const (
	StatusNew    = "new"
	StatusExists = "exists"
	StatusRemove = "remove"
)

// DryRun works out what applying the package would do, without changing
// anything. It returns nil and the problems when the apply would be
// refused (including a corrupt record); the results hold any warnings too.
func DryRun(rl *resourcelist.ResourceList, opts Options) (*Preview, []result.Result) {
	s, rs := prepare(rl, opts, false)
	if s == nil {
		if result.List(rs).HasError() {
			return nil, rs
		}
		return &Preview{}, rs
	}
	p, bad := s.preview()
	if bad != nil {
		return nil, append(rs, *bad)
	}
	return p, rs
}

// preview turns a planned apply into a Preview; a record whose last-applied
// contents cannot be read is corrupt.
func (s *state) preview() (*Preview, *result.Result) {
	old := s.target.record.Status
	applied, err := decodeApplied(old.LastApplied)
	if err != nil {
		r := s.target.item.Errorf("status.lastApplied", "%s: %s: corrupt record (fix it, or delete the Stack to start a new one): status.lastApplied: %s",
			s.target.path, name(s.target.item.Header()), err)
		return nil, &r
	}
	recorded := make(map[string]v1alpha1.StackResource, len(old.Resources))
	for _, e := range old.Resources {
		recorded[e.Key()] = e
	}
	p := &Preview{MissingEnvRefs: s.next.MissingEnvRefs, MissingSecrets: s.next.MissingSecrets, changes: s.changes, stack: s.target.name}
	for i, r := range s.tracked {
		it := Item{Entry: s.next.Resources[i], Status: StatusNew, New: r.contentBytes()}
		if r.refs != nil {
			it.Refs = r.refs.Refs
		}
		if e, ok := recorded[r.key]; ok {
			it.Status, it.Old, it.OldAssociations = StatusExists, applied[e.ID], nonNil(e.Associations)
			delete(recorded, r.key)
		}
		p.Items = append(p.Items, it)
	}
	for _, e := range old.Resources {
		if _, gone := recorded[e.Key()]; gone {
			p.Items = append(p.Items, Item{Entry: e, Status: StatusRemove, Old: applied[e.ID], OldAssociations: nonNil(e.Associations)})
		}
	}
	return p, nil
}

// nonNil returns s, or an empty slice for nil (JSON's [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// results are a dry run's results: one per change the apply would make
// (an update with the unified diff of its content), or "no changes", and
// the references it would have no value for.
func (p *Preview) results(t *target) []result.Result {
	byKey := map[string]Item{}
	for _, it := range p.Items {
		byKey[it.Entry.Key()] = it
	}
	out := report(p.changes, t)
	for i, c := range p.changes {
		msg := "would " + strings.TrimSuffix(c.Verb, "d") + out[i].Message[len(c.Verb):] // created → would create
		if d := byKey[c.Entry.Key()].Unified(); c.Verb == "updated" && d != "" {
			msg += "\n" + d
		}
		out[i].Message = msg
	}
	at := func(r result.Result) result.Result {
		if t.item != nil {
			return t.item.Header().Attach(r)
		}
		return r
	}
	if len(out) == 0 {
		out = append(out, at(result.Infof("dry run: no changes")))
	}
	if len(p.MissingEnvRefs)+len(p.MissingSecrets) > 0 {
		out = append(out, at(result.Infof("dry run: missingEnvRefs %v, missingSecrets %v", p.MissingEnvRefs, p.MissingSecrets)))
	}
	return out
}

// Changes are the changes the apply would make, as its results name them.
func (p *Preview) Changes() []string {
	var out []string
	for _, c := range p.changes {
		out = append(out, c.Message())
	}
	return out
}

// sortedItems returns the items sorted as pkger sorts a diff's resources:
// by name, then kind, namespace and API group.
func sortedItems(items []Item) []Item {
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b Item) int {
		return cmp.Or(cmp.Compare(a.Entry.PkgName, b.Entry.PkgName), cmp.Compare(a.Entry.Kind, b.Entry.Kind),
			cmp.Compare(a.Entry.Namespace, b.Entry.Namespace), cmp.Compare(a.Entry.APIVersion, b.Entry.APIVersion))
	})
	return out
}

// ref names an item for messages and diff headers: Kind/name.
func (it Item) ref() string { return it.Entry.Ref() }

// String names the item and what would happen to it.
func (it Item) String() string { return fmt.Sprintf("%s (%s)", it.ref(), it.Status) }
