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

// blockStyle turns flow style (JSON) into block style: no braces, and quotes
// only where a string needs them.
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
