package resourcelist

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
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
	emit.QuoteAmbiguous(y)
	e.scratch.Reset()
	if !emit.Bare(y) || !emit.Entry(&e.scratch, y, 1) {
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
