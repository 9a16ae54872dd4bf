// Package fieldpath is the one way kptkit finds, reads, sets and removes
// fields of YAML nodes. A Path (`spec.packageContext.data`) goes in; the node
// at that place comes out, or is created, set or removed in place, so that the
// comments, order and quoting of everything around it survive.
package fieldpath

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Path is a field location: the names of the mapping fields from the root.
type Path []string

// Parse splits a dotted path ("spec.packageContext.data").
func Parse(s string) Path {
	if s == "" {
		return nil
	}
	return strings.Split(s, ".")
}

// String returns the dotted form of the path, as results show it.
func (p Path) String() string { return strings.Join(p, ".") }

// Child returns the path extended by the given fields.
func (p Path) Child(fields ...string) Path {
	return append(slices.Clip(p), fields...)
}

// Index returns the path of the i-th element of the list at p: `pipeline.mutators[2]`.
func (p Path) Index(i int) Path {
	if len(p) == 0 {
		return Path{fmt.Sprintf("[%d]", i)}
	}
	out := slices.Clone(p)
	out[len(out)-1] += fmt.Sprintf("[%d]", i)
	return out
}

// Lookup returns the node at p, or nil when a field on the way is missing or
// is not a mapping.
func Lookup(n *yaml.RNode, p Path) *yaml.RNode {
	for _, f := range p {
		if n == nil || n.YNode().Kind != yaml.MappingNode {
			return nil
		}
		mf := n.Field(f)
		if mf == nil {
			return nil
		}
		n = mf.Value
	}
	return n
}

// Field returns the value of key in the mapping m, or nil: Lookup's step on
// bare nodes, for hot paths that read many items (no node is wrapped).
func Field(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// String returns the string at p and whether there is a (non-null) scalar
// there.
func String(n *yaml.RNode, p Path) (string, bool) {
	v := Lookup(n, p)
	if v == nil || v.YNode().Kind != yaml.ScalarNode || v.YNode().Tag == yaml.NodeTagNull {
		return "", false
	}
	return v.YNode().Value, true
}

// Ensure returns the mapping at p, creating it and the mappings on the way.
// It fails when a field on the way exists and is not a mapping.
func Ensure(n *yaml.RNode, p Path) (*yaml.RNode, error) {
	for i, f := range p {
		if n.YNode().Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s is not a mapping", Path(p[:i]))
		}
		mf := n.Field(f)
		if mf == nil || yaml.IsMissingOrNull(mf.Value) {
			child := &yaml.Node{Kind: yaml.MappingNode}
			setField(n.YNode(), f, child)
			n = yaml.NewRNode(child)
			continue
		}
		if mf.Value.YNode().Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s is not a mapping", Path(p[:i+1]))
		}
		n = mf.Value
	}
	return n, nil
}

// Set puts value at p (whose last element is the field name), creating the
// mappings on the way. An existing field keeps its place and comments, and a
// scalar replaced by a scalar keeps its quoting style.
func Set(n *yaml.RNode, p Path, value *yaml.RNode) error {
	if len(p) == 0 {
		return fmt.Errorf("cannot set the root")
	}
	parent, err := Ensure(n, p[:len(p)-1])
	if err != nil {
		return err
	}
	setField(parent.YNode(), p[len(p)-1], value.YNode())
	return nil
}

func setField(m *yaml.Node, name string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != name {
			continue
		}
		old := m.Content[i+1]
		if v.LineComment == "" {
			v.LineComment = old.LineComment
		}
		if v.HeadComment == "" {
			v.HeadComment = old.HeadComment
		}
		if v.FootComment == "" {
			v.FootComment = old.FootComment
		}
		if old.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode && v.Style == 0 &&
			old.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 && !strings.Contains(v.Value, "\n") {
			v.Style = old.Style
		}
		m.Content[i+1] = v
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: name}, v)
}

// SetString puts the string s at p.
func SetString(n *yaml.RNode, p Path, s string) error {
	return Set(n, p, NewString(s))
}

// Remove deletes the field at p; a missing field is not an error.
func Remove(n *yaml.RNode, p Path) error {
	if len(p) == 0 {
		return fmt.Errorf("cannot remove the root")
	}
	parent := Lookup(n, p[:len(p)-1])
	if parent == nil || parent.YNode().Kind != yaml.MappingNode {
		return nil
	}
	_, err := parent.Pipe(yaml.Clear(p[len(p)-1]))
	return err
}

// NewString returns a string scalar. It is tagged as a string, so that it is
// quoted on output when YAML would read it as another type (`"1"`, `"yes"`).
func NewString(s string) *yaml.RNode {
	return yaml.NewRNode(&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s})
}

// NewStringList returns a list of string scalars.
func NewStringList(values []string) *yaml.RNode {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, v := range values {
		n.Content = append(n.Content, NewString(v).YNode())
	}
	return yaml.NewRNode(n)
}

// Keys returns the keys of the mapping n, in order.
func Keys(n *yaml.RNode) []string {
	if n == nil || n.YNode().Kind != yaml.MappingNode {
		return nil
	}
	c := n.YNode().Content
	out := make([]string, 0, len(c)/2)
	for i := 0; i+1 < len(c); i += 2 {
		out = append(out, c[i].Value)
	}
	return out
}

// Deref returns the node n stands for: aliases followed and a document
// unwrapped; nil for nil, or for a chain too long to be data.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 100; i++ {
		switch {
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
	return nil
}
