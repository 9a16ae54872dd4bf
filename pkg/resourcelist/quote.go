package resourcelist

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// quoteAmbiguous quotes every plain string (key or value) that a YAML 1.1 reader (such
// as kubectl's) would take for a boolean, number or null: `yes`, `on`, `0x1F`.
func quoteAmbiguous(n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode, yaml.MappingNode:
		for _, c := range n.Content {
			quoteAmbiguous(c)
		}
	case yaml.ScalarNode:
		if n.Style == 0 && n.Tag == yaml.NodeTagString && ambiguous(n.Value) {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
}

// ambiguous reports whether a YAML 1.1 reader would not read s as a string.
// The cheap test up front spares the full check for almost every value.
func ambiguous(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '+', c == '-', c == '.':
		if !numberLike(s) {
			return false
		}
	case c == '~':
	default:
		if len(s) > 5 {
			return false
		}
		switch strings.ToLower(s) {
		case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
		default:
			return false
		}
	}
	return yaml.IsValueNonString(s)
}

// BlockStyle turns flow style (JSON) into the block style kpt writes: no
// braces, and a one-line string quoted (double) only where a YAML 1.1 reader
// would misread it; a multi-line string keeps its quotes. It is how Write
// writes a list that came in as JSON.
func BlockStyle(n *yaml.Node) {
	blockStyle(n)
	quoteAmbiguous(n) // blockStyle dropped the quotes of every one-line string
}

// blockStyle turns flow style (JSON) into block style: no braces, and no
// quotes on one-line strings.
func blockStyle(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
		n.Style &^= yaml.FlowStyle
		for _, c := range n.Content {
			blockStyle(c)
		}
	case yaml.ScalarNode:
		if n.Tag == yaml.NodeTagString && !strings.Contains(n.Value, "\n") {
			n.Style &^= yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle
		}
	}
}
