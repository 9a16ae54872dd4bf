package resourcelist

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Encoded is a new item encoded by an Encoder, for AddEncoded: the list
// keeps its text, not its nodes.
type Encoded struct {
	enc  []byte     // its entry in the list; nil when kept as nodes
	node *yaml.Node // a copy of its nodes, when not encoded
	hdr  Header
}

// AddEncoded adds an item an Encoder encoded, at the end of the list. Node
// parses its text again if someone reads the item; Edit makes it an item
// written from its nodes.
func (rl *ResourceList) AddEncoded(e Encoded) *Item {
	it := &Item{rl: rl, pos: -1, state: stateAdded, enc: e.enc}
	if e.enc == nil {
		it.node = yaml.NewRNode(e.node)
	} else {
		h := e.hdr
		it.hdr = &h
	}
	rl.items = append(rl.items, it)
	return it
}

// Encoder encodes new items away from the list, so that a function adding
// thousands of items holds their bytes instead of their trees, and can
// encode many at once: one Encoder per goroutine, then AddEncoded in order.
type Encoder struct {
	scratch bytes.Buffer // where items are encoded
	arena   []byte       // where their encodings are kept, end to end
}

// Encode sets the item's path as Append does and encodes it; n's nodes are
// free for reuse when it returns. An item with comments or flow style (one
// the plain emitter does not write) is kept as a copy of its nodes instead:
// its text might not read back the same.
func (e *Encoder) Encode(n *yaml.RNode, path string) (Encoded, error) {
	if err := setPath(n, path); err != nil {
		return Encoded{}, err
	}
	y := n.YNode()
	quoteAmbiguous(y)
	e.scratch.Reset()
	if !bare(y) || !emitEntry(&e.scratch, y, 1) {
		return Encoded{node: yaml.CopyYNode(y)}, nil
	}
	return Encoded{enc: e.keep(e.scratch.Bytes()), hdr: readHeader(n, -1)}, nil
}

// arenaSize is the size of the blocks an Encoder keeps encodings in.
const arenaSize = 256 << 10

// keep copies an encoding into the arena: thousands of items' text in a few
// blocks, not in thousands of growing buffers.
func (e *Encoder) keep(enc []byte) []byte {
	if len(enc) > cap(e.arena)-len(e.arena) {
		e.arena = make([]byte, 0, max(arenaSize, len(enc)))
	}
	start := len(e.arena)
	e.arena = append(e.arena, enc...)
	return e.arena[start:len(e.arena):len(e.arena)]
}

// bare reports whether n has no comments, literal blocks or flow lists,
// which emit writes but which do not read back as the same nodes.
func bare(n *yaml.Node) bool {
	if n.LineComment != "" || n.Kind == yaml.ScalarNode && literal(n) || n.Kind == yaml.SequenceNode && n.Style == yaml.FlowStyle && len(n.Content) > 0 {
		return false
	}
	for _, c := range n.Content {
		if !bare(c) {
			return false
		}
	}
	return true
}

// decodeEntry parses an encoded item from its entry in the list ("- " and
// the item indented by two). The text is this package's own encoding of a
// node that encoded without error: it parses.
func decodeEntry(entry []byte) *yaml.Node {
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
