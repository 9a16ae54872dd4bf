package emit

import (
	"bytes"
	"io"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Plan is a list's output laid out before it is written: pieces of the
// input and of encoded text, in order. Bytes and WriteTo follow it;
// everything that can fail happens while it is made.
type Plan struct {
	src    []byte
	arena  bytes.Buffer // encoded text, end to end
	pieces []piece
	size   int
	last   byte // the last byte planned
}

// piece is a range of the input or of the arena, or text of its own.
type piece struct {
	own        []byte
	arena      bool
	start, end int
}

// NewPlan returns an empty plan of an output made from the input src.
func NewPlan(src []byte) *Plan { return &Plan{src: src} }

func (p *Plan) of(pc piece) []byte {
	switch {
	case pc.own != nil:
		return pc.own
	case pc.arena:
		return p.arena.Bytes()[pc.start:pc.end]
	default:
		return p.src[pc.start:pc.end]
	}
}

// Bytes returns the output, whole.
func (p *Plan) Bytes() []byte {
	return p.AppendTo(make([]byte, 0, p.size))
}

// AppendTo appends the output to b, grown once to hold it.
func (p *Plan) AppendTo(b []byte) []byte {
	b = slices.Grow(b, p.size)
	for _, pc := range p.pieces {
		b = append(b, p.of(pc)...)
	}
	return b
}

// WriteTo writes the output to w piece by piece, without holding it whole:
// the ranges of the input go from the input to w.
func (p *Plan) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, pc := range p.pieces {
		m, err := w.Write(p.of(pc))
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// add appends a range of the input or the arena, joined to the previous
// piece when it continues it.
func (p *Plan) add(arena bool, start, end int) {
	if start >= end {
		return
	}
	if n := len(p.pieces); n > 0 && p.pieces[n-1].own == nil && p.pieces[n-1].arena == arena && p.pieces[n-1].end == start {
		p.pieces[n-1].end = end
	} else {
		p.pieces = append(p.pieces, piece{arena: arena, start: start, end: end})
	}
	p.size += end - start
	if arena {
		p.last = p.arena.Bytes()[end-1]
	} else {
		p.last = p.src[end-1]
	}
}

// Lines copies the input's src[start:end] and makes sure the output ends
// with a line break (the input's last line may lack one).
func (p *Plan) Lines(start, end int) {
	p.add(false, start, end)
	if p.size > 0 && p.last != '\n' {
		p.Text("\n")
	}
}

// Text appends text.
func (p *Plan) Text(s string) {
	start := p.arena.Len()
	p.arena.WriteString(s)
	p.add(true, start, p.arena.Len())
}

// Own appends b, which the plan keeps as it is.
func (p *Plan) Own(b []byte) {
	if len(b) == 0 {
		return
	}
	p.pieces = append(p.pieces, piece{own: b})
	p.size += len(b)
	p.last = b[len(b)-1]
}

// Item appends a sequence entry (see Item): nothing when it fails.
func (p *Plan) Item(n *yaml.Node, col, dropHead int) error {
	start := p.arena.Len()
	if err := Item(&p.arena, n, col, dropHead); err != nil {
		p.arena.Truncate(start)
		return err
	}
	p.add(true, start, p.arena.Len())
	return nil
}
