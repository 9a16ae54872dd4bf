package resourcelist

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// layout records where the input's parts sit, as byte offsets, so that
// Write can copy every part nobody changed as its original bytes. It is
// only usable (ok) for block-style input: a flow-style or JSON ResourceList
// is written anew as a whole. The items' own places are their entries.
type layout struct {
	ok      bool
	keys    []scan.RootKey // the root mapping's keys, in input order
	entries bool           // every input item has its entry: the items are written in place
	seqCol  int            // column (1-based) of the items' dashes
}

// layoutNodes finds the layout of a ResourceList parsed whole, from its
// nodes' line numbers.
func (rl *ResourceList) layoutNodes() {
	l := &rl.layout
	if rl.src == nil || rl.doc.Style&yaml.FlowStyle != 0 {
		return
	}
	// A lone carriage return breaks lines for YAML but not here: the
	// parser's line numbers would not be these lines.
	if cr := bytes.Count(rl.src, []byte("\r")); cr > 0 && cr != bytes.Count(rl.src, []byte("\r\n")) {
		return
	}
	starts := lineStarts(rl.src)
	line := func(n int) []byte { // the n-th line (1-based), with its break
		if n == len(starts) {
			return rl.src[starts[n-1]:]
		}
		return rl.src[starts[n-1]:starts[n]]
	}
	for n := range starts {
		if bytes.Equal(bytes.TrimRight(line(n+1), "\r\n"), []byte("...")) {
			return
		}
	}
	c := rl.doc.Content
	var lines []int
	seen := false
	for i := 0; i+1 < len(c); i += 2 {
		if len(lines) > 0 && c[i].Line <= lines[len(lines)-1] || c[i].Value == "items" && seen {
			return // out of order, or two items keys: written anew
		}
		seen = seen || c[i].Value == "items"
		lines = append(lines, c[i].Line)
		l.keys = append(l.keys, scan.RootKey{Name: c[i].Value, Start: starts[c[i].Line-1]})
	}
	for i := range l.keys {
		l.keys[i].End = len(rl.src)
		if i+1 < len(l.keys) {
			l.keys[i].End = l.keys[i+1].Start
		}
	}
	for i, k := range l.keys {
		seq := c[2*i+1]
		if k.Name != "items" || seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || len(seq.Content) == 0 {
			continue // the items are written anew; the rest can still be copied
		}
		if !rl.findDashes(seq, lines[i], k.End, line, starts) {
			return
		}
	}
	l.ok = true
}

// findDashes finds the line of each item's "-" indicator: the nearest line
// at or above the item's first token with a "-" at the sequence's column
// and only spaces before it.
func (rl *ResourceList) findDashes(seq *yaml.Node, keyLine, end int, line func(int) []byte, starts []int) bool {
	col := seq.Column
	prev := keyLine
	for i, n := range seq.Content {
		found := 0
		for ln := n.Line; ln > prev; ln-- {
			if isDashLine(line(ln), col) {
				found = ln
				break
			}
		}
		if found == 0 || starts[found-1] >= end {
			return false
		}
		e := scan.NewEntry(rl.src, starts[found-1], found, starts[prev-1])
		if i > 0 {
			rl.items[i-1].entry.End = e.Start
		}
		rl.items[i].entry = e
		prev = found
	}
	rl.items[len(seq.Content)-1].entry.End = int32(end)
	rl.layout.seqCol = col
	rl.layout.entries = true
	return true
}

// lineStarts returns the offset of every line's start.
func lineStarts(src []byte) []int {
	starts := make([]int, 0, bytes.Count(src, []byte("\n"))+1)
	for i := 0; i < len(src); {
		starts = append(starts, i)
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return starts
}

func isDashLine(line []byte, col int) bool {
	if len(line) < col || line[col-1] != '-' {
		return false
	}
	for _, c := range line[:col-1] {
		if c != ' ' {
			return false
		}
	}
	return len(line) == col || line[col] == ' ' || line[col] == '\n' || line[col] == '\r'
}
