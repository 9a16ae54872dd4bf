package fanout

import (
	"cmp"
	"errors"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// equal reports whether two YAML values are the same data: scalars of the
// same tag and value, lists item by item, mappings key by key in any order.
// Comments, styles and key order do not count.
func equal(a, b *yaml.Node) bool {
	a, b = fieldpath.Deref(a), fieldpath.Deref(b)
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		tag := a.ShortTag()
		return tag == b.ShortTag() && (a.Value == b.Value || tag == yaml.NodeTagNull)
	case yaml.SequenceNode:
		if len(a.Content) != len(b.Content) {
			return false
		}
		for i := range a.Content {
			if !equal(a.Content[i], b.Content[i]) {
				return false
			}
		}
		return true
	case yaml.MappingNode:
		return equalMappings(a, b)
	}
	return false
}

func equalMappings(a, b *yaml.Node) bool {
	if sameKeys(a, b) { // the usual case: our own output, read back
		for i := 1; i < len(a.Content); i += 2 {
			if !equal(a.Content[i], b.Content[i]) {
				return false
			}
		}
		return true
	}
	am, bm := fields(a), fields(b)
	if len(am) != len(bm) {
		return false
	}
	for k, av := range am {
		if bv, ok := bm[k]; !ok || !equal(av, bv) {
			return false
		}
	}
	return true
}

// sameKeys reports whether two mappings have the same keys in the same order.
func sameKeys(a, b *yaml.Node) bool {
	if len(a.Content) != len(b.Content) {
		return false
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		if fieldpath.Deref(a.Content[i]).Value != fieldpath.Deref(b.Content[i]).Value {
			return false
		}
	}
	return true
}

// fields maps a mapping's keys to values (the last of duplicate keys wins).
func fields(m *yaml.Node) map[string]*yaml.Node {
	out := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		out[fieldpath.Deref(m.Content[i]).Value] = m.Content[i+1]
	}
	return out
}

// field returns the value of a mapping's field, aliases followed, or nil.
func field(m *yaml.Node, key string) *yaml.Node {
	m = fieldpath.Deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if fieldpath.Deref(m.Content[i]).Value == key {
			return fieldpath.Deref(m.Content[i+1])
		}
	}
	return nil
}

// errTooBig is returned by plain for YAML that aliases expand beyond
// maxPlainNodes.
var errTooBig = errors.New("too many YAML nodes once aliases are expanded")

const maxPlainNodes = 10_000

// plain returns a copy of n with aliases expanded, comments dropped and
// block style throughout (scalars keep their quoting), for copying template
// parts into every child.
func plain(n *yaml.Node) (*yaml.Node, error) {
	budget := maxPlainNodes
	return plainCopy(n, &budget)
}

func plainCopy(n *yaml.Node, budget *int) (*yaml.Node, error) {
	n = fieldpath.Deref(n)
	if *budget--; *budget < 0 {
		return nil, errTooBig
	}
	if n == nil {
		return nil, nil
	}
	out := &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Style: n.Style &^ yaml.FlowStyle}
	for _, c := range n.Content {
		cc, err := plainCopy(c, budget)
		if err != nil {
			return nil, err
		}
		if cc != nil {
			out.Content = append(out.Content, cc)
		}
	}
	return out, nil
}

// sortItems puts items in ResourceList order.
func sortItems(items []*resourcelist.Item) {
	slices.SortFunc(items, func(a, b *resourcelist.Item) int { return cmp.Compare(a.Position(), b.Position()) })
}
