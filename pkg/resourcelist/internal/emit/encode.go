package emit

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Item writes one sequence entry with its dash at column col (1-based),
// leaving out the first dropHead lines of its head comment (written
// already, from the lines above its dash): with the emitter where it can,
// else as yaml.v3 encodes it, indented. It quotes in n what YAML 1.1 would
// misread first.
func Item(b *bytes.Buffer, n *yaml.Node, col int, dropHead int) error {
	if dropHead > 0 && n.HeadComment != "" {
		c := *n
		lines := strings.SplitAfterN(c.HeadComment, "\n", dropHead+1)
		c.HeadComment = ""
		if len(lines) > dropHead {
			c.HeadComment = lines[dropHead]
		}
		n = &c
	}
	QuoteAmbiguous(n)
	if Entry(b, n, col) {
		return nil
	}
	indent := strings.Repeat(" ", col-1)
	enc := Encode(n)
	if enc == nil {
		return fmt.Errorf("cannot encode an item")
	}
	for i, line := range bytes.SplitAfter(bytes.TrimSuffix(enc, []byte("\n")), []byte("\n")) {
		switch {
		case i == 0:
			b.WriteString(indent + "- ")
		case len(bytes.TrimSpace(line)) == 0:
			b.Write(line)
			continue
		default:
			b.WriteString(indent + "  ")
		}
		b.Write(line)
	}
	b.WriteByte('\n')
	return nil
}

// Entry writes a plain mapping (one the emitter takes) as a sequence entry
// with its dash at column col (1-based), in place, or writes nothing and
// returns false. The caller has quoted what YAML 1.1 would misread.
func Entry(b *bytes.Buffer, n *yaml.Node, col int) bool {
	if n.Kind != yaml.MappingNode || !Emittable(n, 0) {
		return false
	}
	start := b.Len()
	b.WriteString(strings.Repeat(" ", col-1) + "- ")
	if e := (Emitter{b: b}); e.node(n, col+1, true) {
		return true
	}
	b.Truncate(start)
	return false
}

// Encode encodes a node the way kpt writes YAML (2-space indent, compact
// sequences), or returns nil if it cannot be encoded: with the emitter
// where it can, else with yaml.v3.
func Encode(n *yaml.Node) []byte {
	var b bytes.Buffer
	if emit(&b, n) {
		return b.Bytes()
	}
	return encodeV3(n)
}

// encodeV3 encodes a node with yaml.v3's encoder.
func encodeV3(n *yaml.Node) (out []byte) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(n); err != nil {
		return nil
	}
	if err := enc.Close(); err != nil {
		return nil
	}
	return b.Bytes()
}

// Bare reports whether n has no comments, literal blocks or flow lists,
// which the emitter writes but which do not read back as the same nodes:
// an item kept as its entry's text (DecodeEntry) must be bare.
func Bare(n *yaml.Node) bool {
	if n.LineComment != "" || n.Kind == yaml.ScalarNode && literal(n) || n.Kind == yaml.SequenceNode && n.Style == yaml.FlowStyle && len(n.Content) > 0 {
		return false
	}
	for _, c := range n.Content {
		if !Bare(c) {
			return false
		}
	}
	return true
}

// DecodeEntry parses an item from its entry in a list as Entry wrote it
// ("- " and the item indented by two). The text is the emitter's own
// encoding of a node that encoded without error: it parses.
func DecodeEntry(entry []byte) *yaml.Node {
	var b bytes.Buffer
	b.Grow(len(entry))
	for i, line := range bytes.SplitAfter(entry, []byte("\n")) {
		if i == 0 {
			line = bytes.TrimPrefix(line, []byte("- "))
		} else {
			line = bytes.TrimPrefix(line, []byte("  "))
		}
		b.Write(line)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Content) != 1 {
		panic(fmt.Sprintf("resourcelist: an encoded item does not parse back: %v", err))
	}
	return doc.Content[0]
}
