package inject

import (
	"errors"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Bounds on copying a source's field: aliases can make a small document
// expand to an enormous one.
const (
	maxCopyNodes = 1 << 20
	maxCopyDepth = 1000
)

var errTooLarge = errors.New("it is too large or too deeply nested (aliases expanded)")

// detach returns a deep copy of n that stands on its own: aliases are
// replaced by copies of what they point at, and anchors dropped, so that the
// copy can be written into another document. It is in block style, as kpt
// and Porch write YAML (a source read from JSON would otherwise land in the
// package as JSON); quotes stay only where a string needs them.
func detach(n *yaml.Node) (*yaml.Node, error) {
	budget := maxCopyNodes
	return detachNode(n, 0, &budget)
}

func detachNode(n *yaml.Node, depth int, budget *int) (*yaml.Node, error) {
	if *budget--; *budget < 0 || depth > maxCopyDepth {
		return nil, errTooLarge
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return detachNode(n.Alias, depth+1, budget)
	}
	c := *n
	c.Anchor, c.Alias = "", nil
	c.Content = nil
	switch {
	case c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode:
		c.Style &^= yaml.FlowStyle
	case c.Kind == yaml.ScalarNode && c.Tag == yaml.NodeTagString && !strings.Contains(c.Value, "\n"):
		c.Style &^= yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle
	}
	for _, child := range n.Content {
		cc, err := detachNode(child, depth+1, budget)
		if err != nil {
			return nil, err
		}
		c.Content = append(c.Content, cc)
	}
	if c.Kind == yaml.MappingNode {
		keepLineComments(c.Content)
	}
	return &c, nil
}

// keepLineComments moves the line comment of a collection value to its key:
// `members: [a, b] # x` becomes `members: # x` over a block list, where the
// encoder would otherwise put the comment after a later line.
func keepLineComments(pairs []*yaml.Node) {
	for i := 0; i+1 < len(pairs); i += 2 {
		k, v := pairs[i], pairs[i+1]
		if v.Kind != yaml.ScalarNode && v.LineComment != "" && k.LineComment == "" {
			k.LineComment, v.LineComment = v.LineComment, ""
		}
	}
}
