package inject

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Reasons and messages of the conditions, as Porch writes them.
const (
	ReasonInjected   = "ConfigInjected"
	ReasonNoResource = "NoResourceSelected"
	MessageNoMatch   = "no resource matched any injection selector for this injection point"
)

// Condition is an entry of a Kptfile's status.conditions.
type Condition struct {
	Type    string
	Status  string
	Reason  string
	Message string
}

// condition is the Kptfile condition that reports what became of p.
func (p *point) condition() Condition {
	if p.source != nil {
		return Condition{p.condType, "True", ReasonInjected, fmt.Sprintf("injected resource %q from cluster", p.source.Header.Name)}
	}
	msg := MessageNoMatch
	if len(p.causes) > 0 {
		msg = strings.Join(p.causes, ", ")
	}
	return Condition{p.condType, "False", ReasonNoResource, msg}
}

// The lists the bookkeeping keeps, each keyed by one field of its entries.
var (
	conditions = list{parent: "status", name: "conditions", key: "type"}
	gates      = list{parent: "info", name: "readinessGates", key: "conditionType"}
)

type list struct{ parent, name, key string }

func (l list) path() fieldpath.Path { return fieldpath.Path{l.parent, l.name} }

// entry is one list entry to set: the key's value, then further fields.
type entry struct {
	key    string
	fields [][2]string
}

// recordingKptfile returns the package's root Kptfile (kptfile.RootItem),
// which records the conditions, or the error that there is none (or more
// than one), or that its lists are not what kpt reads.
func recordingKptfile(rl *resourcelist.ResourceList) (*resourcelist.Item, []result.Result) {
	kf, rs := kptfile.RootItem(rl)
	switch {
	case len(rs) > 0:
		return nil, rs
	case kf == nil:
		return nil, []result.Result{result.Errorf("%q not found: the package has no Kptfile at its root to hold the conditions of its injection points",
			kptapi.FileName).WithFile(kptapi.FileName, 0)}
	}
	h := kf.Header()
	for _, l := range []list{gates, conditions} {
		parent := fieldpath.Lookup(kf.Node(), fieldpath.Path{l.parent})
		seq := fieldpath.Lookup(kf.Node(), l.path())
		switch {
		case !yaml.IsMissingOrNull(parent) && parent.YNode().Kind != yaml.MappingNode:
			rs = append(rs, kf.Errorf(l.parent, "%s: %s: %s must be a mapping", h.Where(), h, l.parent))
		case !yaml.IsMissingOrNull(seq) && seq.YNode().Kind != yaml.SequenceNode:
			rs = append(rs, kf.Errorf(l.path().String(), "%s: %s: %s must be a list", h.Where(), h, l.path()))
		}
	}
	return kf, rs
}

// record writes a condition per point into the Kptfile's status.conditions
// and a readiness gate per required point into info.readinessGates. Entries
// of other types are kept; both lists come out de-duplicated and sorted.
func record(kf *resourcelist.Item, pts []*point) {
	var conds, reqs []entry
	for _, p := range pts {
		c := p.condition()
		conds = append(conds, entry{c.Type, [][2]string{{"status", c.Status}, {"reason", c.Reason}, {"message", c.Message}}})
		if p.required {
			reqs = append(reqs, entry{key: p.condType})
		}
	}
	n := kf.Edit()
	if old := fieldpath.Lookup(n, gates.path()); len(reqs) > 0 || (old != nil && old.YNode().Kind == yaml.SequenceNode) {
		merge(n, gates, reqs)
	}
	merge(n, conditions, conds)
}

// merge sets the entries in the list: the first entry of each key is updated
// in place, later ones of the same key dropped, new keys appended; then the
// list is sorted by key (entries without one first, in their order).
func merge(kf *yaml.RNode, l list, want []entry) {
	parent, seq := ensureList(kf, l)
	byKey := map[string]*yaml.Node{}
	var content []*yaml.Node
	for _, e := range seq.Content {
		k := keyOf(e, l.key)
		if k != "" {
			if byKey[k] != nil {
				continue
			}
			byKey[k] = e
		}
		content = append(content, e)
	}
	for _, e := range want {
		if byKey[e.key] == nil {
			byKey[e.key] = &yaml.Node{Kind: yaml.MappingNode}
			content = append(content, byKey[e.key])
		}
		set(byKey[e.key], l.key, e.key)
		for _, f := range e.fields {
			set(byKey[e.key], f[0], f[1])
		}
	}
	slices.SortStableFunc(content, func(a, b *yaml.Node) int { return cmp.Compare(keyOf(a, l.key), keyOf(b, l.key)) })
	seq.Content = content
	if len(content) > 0 {
		// Entries are written one per line, as kpt writes them.
		seq.Style &^= yaml.FlowStyle
		parent.Style &^= yaml.FlowStyle
	}
}

// ensureList returns the list l of the Kptfile and the mapping holding it,
// creating them when missing (a new parent in the place kpt writes it).
func ensureList(kf *yaml.RNode, l list) (parent, seq *yaml.Node) {
	created := fieldpath.Lookup(kf, fieldpath.Path{l.parent}) == nil
	p, err := fieldpath.Ensure(kf, fieldpath.Path{l.parent})
	if err != nil {
		// recordingKptfile refused such a Kptfile: this cannot happen.
		p = yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
	}
	if created {
		kptfile.PlaceField(kf.YNode(), l.parent)
	}
	if s := fieldpath.Lookup(p, fieldpath.Path{l.name}); s != nil && s.YNode().Kind == yaml.SequenceNode {
		return p.YNode(), s.YNode()
	}
	seq = &yaml.Node{Kind: yaml.SequenceNode}
	_ = fieldpath.Set(p, fieldpath.Path{l.name}, yaml.NewRNode(seq))
	return p.YNode(), seq
}

// set sets a string field of a mapping, keeping its place and quoting.
func set(m *yaml.Node, field, value string) {
	_ = fieldpath.SetString(yaml.NewRNode(m), fieldpath.Path{field}, value)
}

// keyOf returns the scalar value of a mapping entry's key field, or "".
func keyOf(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	v, _ := fieldpath.String(yaml.NewRNode(n), fieldpath.Path{key})
	return v
}
