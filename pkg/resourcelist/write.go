package resourcelist

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Write returns the ResourceList as YAML: items in order (new ones last),
// every item nobody changed as its original bytes, then the results.
func (rl *ResourceList) Write() ([]byte, error) {
	p, err := rl.plan()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, p.size)
	for _, pc := range p.pieces {
		out = append(out, p.bytes(pc)...)
	}
	return out, nil
}

// WriteTo writes what Write returns to w, without holding it whole: the
// items nobody changed go from the input to w. When the list cannot be
// encoded it returns the error having written nothing.
func (rl *ResourceList) WriteTo(w io.Writer) (int64, error) {
	p, err := rl.plan()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, pc := range p.pieces {
		m, err := w.Write(p.bytes(pc))
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// plan encodes what changed and lays out the output as pieces: ranges of
// the input and encoded text, in order. Only planning can fail.
func (rl *ResourceList) plan() (*plan, error) {
	p := &plan{src: rl.src}
	l := &rl.layout
	if !l.ok {
		return p, rl.writeAnew(p)
	}
	first := len(rl.src)
	if len(l.keys) > 0 {
		first = l.keys[0].start
	}
	p.lines(0, first)
	hasItems := false
	for _, k := range l.keys {
		switch k.name {
		case "results":
		case "items":
			hasItems = true
			if err := rl.writeItems(p, k); err != nil {
				return nil, err
			}
		default:
			p.lines(k.start, k.end)
		}
	}
	if !hasItems {
		if err := rl.writeItemsAnew(p); err != nil {
			return nil, err
		}
	}
	if err := rl.writeResults(p); err != nil {
		return nil, err
	}
	return p, nil
}

// writeItems plans the items in place of the input's: untouched ones as
// their bytes, the comment lines above a changed item's dash kept.
func (rl *ResourceList) writeItems(p *plan, k rootKey) error {
	if !rl.layout.entries {
		return rl.writeItemsAnew(p)
	}
	col := rl.layout.seqCol
	p.lines(k.start, int(rl.items[0].entry.start))
	for i, it := range rl.items {
		if it.pos < 0 {
			if it.state == stateDeleted {
				continue
			}
			if it.enc != nil && col == 1 {
				p.own(it.enc)
				continue
			}
			if err := p.item(it.Node().YNode(), col, 0); err != nil {
				return err
			}
			continue
		}
		e := it.entry
		if rl.unchanged(it) {
			p.lines(int(e.start), int(e.end))
			continue
		}
		if it.state != stateDeleted {
			if err := p.item(it.node.YNode(), col, int(e.nAbove)); err != nil {
				return err
			}
		}
		// The comment above the next item's dash sits in this item's lines.
		if i+1 < len(rl.items) && rl.items[i+1].pos >= 0 {
			next := rl.items[i+1].entry
			p.lines(int(next.above), int(next.start))
		}
	}
	return nil
}

func (rl *ResourceList) writeItemsAnew(p *plan) error {
	if rl.Len() == 0 {
		p.text("items: []\n")
		return nil
	}
	p.text("items:\n")
	for _, it := range rl.items {
		if it.state == stateDeleted {
			continue
		}
		if it.enc != nil {
			p.own(it.enc)
			continue
		}
		if err := p.item(it.Node().YNode(), 1, 0); err != nil {
			return err
		}
	}
	return nil
}

// unchanged reports whether the item can be written as its original bytes.
func (rl *ResourceList) unchanged(it *Item) bool {
	switch it.state {
	case stateKept:
		return true
	case stateEdited:
		return bytes.Equal(it.snap, encodeNode(it.node.YNode()))
	default:
		return false
	}
}

// writeAnew encodes the whole ResourceList, for input whose layout cannot be
// kept (flow style, JSON): it comes out as plain block-style YAML.
func (rl *ResourceList) writeAnew(p *plan) error {
	if rl.doc.Style&yaml.FlowStyle != 0 {
		BlockStyle(rl.doc)
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	hasItems := false
	for i := 0; i+1 < len(rl.doc.Content); i += 2 {
		k, v := rl.doc.Content[i], rl.doc.Content[i+1]
		switch k.Value {
		case "results":
			continue
		case "items":
			hasItems = true
			v = &yaml.Node{Kind: yaml.SequenceNode, Content: rl.liveNodes()}
		}
		doc.Content = append(doc.Content, k, v)
	}
	if !hasItems {
		doc.Content = append(doc.Content, str("items"), &yaml.Node{Kind: yaml.SequenceNode, Content: rl.liveNodes()})
	}
	if res := rl.resultNodes(); len(res) > 0 {
		doc.Content = append(doc.Content, str("results"), &yaml.Node{Kind: yaml.SequenceNode, Content: res})
	}
	out := encodeNode(doc)
	if out == nil {
		return fmt.Errorf("cannot encode the ResourceList")
	}
	p.own(out)
	return nil
}

func (rl *ResourceList) liveNodes() []*yaml.Node {
	var out []*yaml.Node
	for _, it := range rl.items {
		if it.state == stateDeleted {
			continue
		}
		if !rl.unchanged(it) {
			quoteAmbiguous(it.Node().YNode())
		}
		out = append(out, it.Node().YNode())
	}
	return out
}

// writeItem writes one sequence entry with its dash at column col, leaving
// out the first dropHead lines of its head comment (written already, from
// the lines above its dash).
func writeItem(b *bytes.Buffer, n *yaml.Node, col int, dropHead int) error {
	if dropHead > 0 && n.HeadComment != "" {
		c := *n
		lines := strings.SplitAfterN(c.HeadComment, "\n", dropHead+1)
		c.HeadComment = ""
		if len(lines) > dropHead {
			c.HeadComment = lines[dropHead]
		}
		n = &c
	}
	quoteAmbiguous(n)
	if emitEntry(b, n, col) {
		return nil
	}
	indent := strings.Repeat(" ", col-1)
	enc := encodeNode(n)
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

// emitEntry writes a plain mapping (one the emitter takes) as a sequence
// entry with its dash at column col, in place, or writes nothing and
// returns false. The caller has quoted what YAML 1.1 would misread.
func emitEntry(b *bytes.Buffer, n *yaml.Node, col int) bool {
	if n.Kind != yaml.MappingNode || !emittable(n, 0) {
		return false
	}
	start := b.Len()
	b.WriteString(strings.Repeat(" ", col-1) + "- ")
	if e := (emitter{b: b}); e.node(n, col+1, true) {
		return true
	}
	b.Truncate(start)
	return false
}

// Emit writes a document's root node as yaml.v3 with kpt's settings
// (2-space indent, compact sequences) writes it, with this package's
// emitter, or writes nothing and returns false where the emitter declines.
func Emit(b *bytes.Buffer, n *yaml.Node) bool { return emit(b, n) }

// EmitEntry writes a mapping as yaml.v3 with kpt's settings writes the one
// element of a list ("- ", the mapping indented by two), with this
// package's emitter (held to yaml.v3 by TestEmitCorpus and FuzzEmit), or
// writes nothing and returns false for what the emitter does not write.
// It is much cheaper than yaml.v3's encoder, which sets up an emitter per
// document.
func EmitEntry(b *bytes.Buffer, n *yaml.Node) bool { return emitEntry(b, n, 1) }

// encodeNode encodes a node the way kpt writes YAML (2-space indent, compact
// sequences), or returns nil if it cannot be encoded: with emit where it
// can, else with yaml.v3.
func encodeNode(n *yaml.Node) []byte {
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
