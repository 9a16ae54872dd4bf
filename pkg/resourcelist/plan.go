package resourcelist

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// plan is the output laid out before it is written: pieces of the input
// and of encoded text, in order. Write and WriteTo follow it; everything
// that can fail happens while it is made.
type plan struct {
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

func (p *plan) bytes(pc piece) []byte {
	switch {
	case pc.own != nil:
		return pc.own
	case pc.arena:
		return p.arena.Bytes()[pc.start:pc.end]
	default:
		return p.src[pc.start:pc.end]
	}
}

// add appends a range of the input or the arena, joined to the previous
// piece when it continues it.
func (p *plan) add(arena bool, start, end int) {
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

// lines copies the input's src[start:end] and makes sure the output ends
// with a line break (the input's last line may lack one).
func (p *plan) lines(start, end int) {
	p.add(false, start, end)
	if p.size > 0 && p.last != '\n' {
		p.text("\n")
	}
}

// text appends text.
func (p *plan) text(s string) {
	start := p.arena.Len()
	p.arena.WriteString(s)
	p.add(true, start, p.arena.Len())
}

// own appends b, which the plan keeps as it is.
func (p *plan) own(b []byte) {
	if len(b) == 0 {
		return
	}
	p.pieces = append(p.pieces, piece{own: b})
	p.size += len(b)
	p.last = b[len(b)-1]
}

// item appends a sequence entry (see writeItem).
func (p *plan) item(n *yaml.Node, col, dropHead int) error {
	start := p.arena.Len()
	if err := writeItem(&p.arena, n, col, dropHead); err != nil {
		p.arena.Truncate(start)
		return err
	}
	p.add(true, start, p.arena.Len())
	return nil
}
