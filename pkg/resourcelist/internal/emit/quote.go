package emit

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// QuoteAmbiguous quotes every plain string (key or value) that a YAML 1.1 reader (such
// as kubectl's) would take for a boolean, number or null: `yes`, `on`, `0x1F`.
func QuoteAmbiguous(n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode, yaml.MappingNode:
		for _, c := range n.Content {
			QuoteAmbiguous(c)
		}
	case yaml.ScalarNode:
		if n.Style == 0 && n.Tag == yaml.NodeTagString && scan.Ambiguous(n.Value) {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
}

// BlockStyle turns flow style (JSON) into the block style kpt writes: no
// braces, and a one-line string quoted (double) only where a YAML 1.1 reader
// would misread it; a multi-line string keeps its quotes. It is how
// resourcelist's Write writes a list that came in as JSON.
func BlockStyle(n *yaml.Node) {
	blockStyle(n)
	QuoteAmbiguous(n) // blockStyle dropped the quotes of every one-line string
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
