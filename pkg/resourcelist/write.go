package resourcelist

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// Write returns the ResourceList as YAML: items in order (new ones last),
// every item nobody changed as its original bytes, then the results.
func (rl *ResourceList) Write() ([]byte, error) {
	p, err := rl.plan()
	if err != nil {
		return nil, err
	}
	return p.Bytes(), nil
}

// AppendText appends what Write returns to b (encoding.TextAppender); when
// the list cannot be encoded it returns b as it was, and the error.
func (rl *ResourceList) AppendText(b []byte) ([]byte, error) {
	p, err := rl.plan()
	if err != nil {
		return b, err
	}
	return p.AppendTo(b), nil
}

// WriteTo writes what Write returns to w, without holding it whole: the
// items nobody changed go from the input to w. When the list cannot be
// encoded it returns the error having written nothing.
func (rl *ResourceList) WriteTo(w io.Writer) (int64, error) {
	p, err := rl.plan()
	if err != nil {
		return 0, err
	}
	return p.WriteTo(w)
}

// plan encodes what changed and lays out the output as pieces: ranges of
// the input and encoded text, in order. Only planning can fail.
func (rl *ResourceList) plan() (*emit.Plan, error) {
	p := emit.NewPlan(rl.src)
	l := &rl.layout
	if !l.ok {
		return p, rl.writeAnew(p)
	}
	first := len(rl.src)
	if len(l.keys) > 0 {
		first = l.keys[0].Start
	}
	p.Lines(0, first)
	hasItems := false
	for _, k := range l.keys {
		switch k.Name {
		case "results":
		case "items":
			hasItems = true
			if err := rl.writeItems(p, k); err != nil {
				return nil, err
			}
		default:
			p.Lines(k.Start, k.End)
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
func (rl *ResourceList) writeItems(p *emit.Plan, k scan.RootKey) error {
	if !rl.layout.entries {
		return rl.writeItemsAnew(p)
	}
	col := rl.layout.seqCol
	p.Lines(k.Start, int(rl.items[0].entry.Start))
	for i, it := range rl.items {
		if it.pos < 0 {
			if it.state == stateDeleted {
				continue
			}
			if it.enc != nil && col == 1 {
				p.Own(it.enc)
				continue
			}
			if err := p.Item(it.Node().YNode(), col, 0); err != nil {
				return err
			}
			continue
		}
		e := it.entry
		if rl.unchanged(it) {
			p.Lines(int(e.Start), int(e.End))
			continue
		}
		if it.state != stateDeleted {
			if err := p.Item(it.node.YNode(), col, int(e.NAbove)); err != nil {
				return err
			}
		}
		// The comment above the next item's dash sits in this item's lines.
		if i+1 < len(rl.items) && rl.items[i+1].pos >= 0 {
			next := rl.items[i+1].entry
			p.Lines(int(next.Above), int(next.Start))
		}
	}
	return nil
}

func (rl *ResourceList) writeItemsAnew(p *emit.Plan) error {
	if rl.Len() == 0 {
		p.Text("items: []\n")
		return nil
	}
	p.Text("items:\n")
	for _, it := range rl.items {
		if it.state == stateDeleted {
			continue
		}
		if it.enc != nil {
			p.Own(it.enc)
			continue
		}
		if err := p.Item(it.Node().YNode(), 1, 0); err != nil {
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
		return bytes.Equal(it.snap, emit.Encode(it.node.YNode()))
	default:
		return false
	}
}

// writeAnew encodes the whole ResourceList, for input whose layout cannot be
// kept (flow style, JSON): it comes out as plain block-style YAML.
func (rl *ResourceList) writeAnew(p *emit.Plan) error {
	if rl.doc.Style&yaml.FlowStyle != 0 {
		emit.BlockStyle(rl.doc)
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
	out := emit.Encode(doc)
	if out == nil {
		return fmt.Errorf("cannot encode the ResourceList")
	}
	p.Own(out)
	return nil
}

func (rl *ResourceList) liveNodes() []*yaml.Node {
	var out []*yaml.Node
	for _, it := range rl.items {
		if it.state == stateDeleted {
			continue
		}
		if !rl.unchanged(it) {
			emit.QuoteAmbiguous(it.Node().YNode())
		}
		out = append(out, it.Node().YNode())
	}
	return out
}

// Emit writes a document's root node as yaml.v3 with kpt's settings
// (2-space indent, compact sequences) writes it, with this package's
// emitter, or writes nothing and returns false where the emitter declines.
func Emit(b *bytes.Buffer, n *yaml.Node) bool { return emit.Document(b, n) }

// EmitEntry writes a mapping as yaml.v3 with kpt's settings writes the one
// element of a list ("- ", the mapping indented by two), with this
// package's emitter (held to yaml.v3 by TestEmitCorpus and FuzzEmit), or
// writes nothing and returns false for what the emitter does not write.
// It is much cheaper than yaml.v3's encoder, which sets up an emitter per
// document.
func EmitEntry(b *bytes.Buffer, n *yaml.Node) bool { return emit.Entry(b, n, 1) }
