package resourcelist

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// layout records where the input's parts sit, as byte offsets, so that
// Write can copy every part nobody changed as its original bytes. It is
// only usable (ok) for block-style input: a flow-style or JSON ResourceList
// is written anew as a whole. The items' own places are their entries.
type layout struct {
	ok      bool
	keys    []rootKey // the root mapping's keys, in input order
	entries bool      // every input item has its entry: the items are written in place
	seqCol  int       // column (1-based) of the items' dashes
}

// rootKey is a key of the ResourceList and its value: its lines, from the
// key's to the next key's.
type rootKey struct {
	name       string
	start, end int
}

// entry is where an item of the input sits: from its dash line to the next
// item's (or the end of the items), and the comment lines right above its
// dash (which lie in the previous item's lines).
type entry struct {
	start, end int32
	above      int32 // where the comment lines above the dash start
	nAbove     int32 // how many there are
	line       int32 // the dash's line, 1-based
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
		l.keys = append(l.keys, rootKey{name: c[i].Value, start: starts[c[i].Line-1]})
	}
	for i := range l.keys {
		l.keys[i].end = len(rl.src)
		if i+1 < len(l.keys) {
			l.keys[i].end = l.keys[i+1].start
		}
	}
	for i, k := range l.keys {
		seq := c[2*i+1]
		if k.name != "items" || seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || len(seq.Content) == 0 {
			continue // the items are written anew; the rest can still be copied
		}
		if !rl.findDashes(seq, lines[i], k.end, line, starts) {
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
		e := newEntry(rl.src, starts[found-1], found, starts[prev-1])
		if i > 0 {
			rl.items[i-1].entry.end = e.start
		}
		rl.items[i].entry = e
		prev = found
	}
	rl.items[len(seq.Content)-1].entry.end = int32(end)
	rl.layout.seqCol = col
	rl.layout.entries = true
	return true
}

// newEntry returns the entry whose dash line starts at start, line line;
// no comment line above it starts at or before floor.
func newEntry(src []byte, start, line, floor int) entry {
	above, n := commentsAbove(src, start, floor)
	return entry{start: int32(start), line: int32(line), above: int32(above), nAbove: int32(n)}
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

// commentsAbove returns where the comment lines right above the line at
// dash start, and how many there are; none start at or before floor (the
// previous dash's line, or the key's).
func commentsAbove(src []byte, dash, floor int) (above, n int) {
	above = dash
	for above > 0 {
		start := bytes.LastIndexByte(src[:above-1], '\n') + 1
		if start <= floor || !isCommentLine(src[start:above]) {
			break
		}
		above, n = start, n+1
	}
	return above, n
}

func isCommentLine(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("#"))
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
