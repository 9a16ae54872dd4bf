package scan

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// builder makes an item's nodes while the scan reads its entry again (for
// Node), exactly as yaml.v3 would (FuzzScan compares every field): the
// scan's structure, yaml.v3's tags, styles, lines and columns. It takes
// no comments but a line comment after a scalar or a flow collection;
// where it cannot be sure it gives up, and yaml.v3 parses the entry.
// Nodes come from slabs and values are cut from one copy of the entry's
// text: a few allocations an item instead of hundreds.
type builder struct {
	text  string // the entry's text
	line  []byte // the line being read
	off   int    // its offset in text
	num   int    // its number in the list (1-based)
	first int    // the number of the entry's first line
	ascii bool   // it is ASCII: columns are bytes
	brk   bool   // it ends with a line break

	size int // how many nodes the entry has
	slab []yaml.Node
	kids []*yaml.Node // the children of the open collections, end to end
	ptrs []*yaml.Node // where closed collections' children go
	root *yaml.Node
	last *yaml.Node // the collection closed last

	block   *yaml.Node       // the block scalar being read
	chomp   byte             // its chomping indicator: 0, '-' or '+'
	value   []byte           // its value so far (a small one: the buffer is reused)
	large   *strings.Builder // its value so far, when large: sized once, never copied
	content int              // the length of value after its last content line
}

// largeBlock is the size of the lines a block scalar may span from which
// its value is built in a buffer of its own, sized for them at once:
// growing a reused buffer line by line, then copying it into a string,
// held a big value three or four times over.
const largeBlock = 64 << 10

// newLine starts a line at offset off of the entry; brk says it ends
// with a line break (the input's last line may not).
func (b *builder) newLine(line []byte, off, num int, brk bool) {
	b.line, b.off, b.num, b.brk = line, off, num, brk
	b.ascii = true
	for _, c := range line {
		if c >= utf8.RuneSelf {
			b.ascii = false
			break
		}
	}
}

// col returns the column (1-based, in characters) of line[k].
func (b *builder) col(k int) int {
	if b.ascii {
		return k + 1
	}
	return utf8.RuneCount(b.line[:k]) + 1
}

// node returns a new node at line[k], attached to the innermost open
// collection (or the item itself).
func (b *builder) node(kind yaml.Kind, tag string, k int) *yaml.Node {
	if len(b.slab) == 0 {
		b.slab = make([]yaml.Node, max(16, b.size))
	}
	n := &b.slab[0]
	b.slab = b.slab[1:]
	n.Kind, n.Tag, n.Line, n.Column = kind, tag, b.num, b.col(k)
	if b.root == nil {
		b.root = n
	} else {
		b.kids = append(b.kids, n)
	}
	return n
}

// open starts a collection at line[k] and returns where its children
// start among the kids.
func (b *builder) open(seq, flow bool, k int) (*yaml.Node, int) {
	n := b.node(yaml.MappingNode, yaml.NodeTagMap, k)
	if seq {
		n.Kind, n.Tag = yaml.SequenceNode, yaml.NodeTagSeq
	}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n, len(b.kids)
}

// close ends a collection: its children are the kids from start on.
func (b *builder) close(n *yaml.Node, start int) {
	kids := b.kids[start:]
	if len(kids) > 0 {
		if cap(b.ptrs)-len(b.ptrs) < len(kids) {
			b.ptrs = make([]*yaml.Node, 0, max(16, len(kids), b.size))
		}
		at := len(b.ptrs)
		b.ptrs = append(b.ptrs, kids...)
		n.Content = b.ptrs[at:len(b.ptrs):len(b.ptrs)]
	}
	b.kids = b.kids[:start]
	b.last = n
}

// scalar adds a one-line scalar, with the comment that follows it on its
// line, and reports whether yaml.v3 would read it so.
func (b *builder) scalar(t tok) bool {
	v := b.text[b.off+t.start : b.off+t.end]
	at := t.start
	switch {
	case t.quote() == 0:
		tag := ResolveTag(v)
		if tag == "" {
			return false
		}
		n := b.node(yaml.ScalarNode, tag, at)
		n.Value = v
		b.comment(n, t.next)
		return true
	case t.escaped():
		var s Scanner
		sp, _ := s.decode(b.line, t)
		v = string(s.text[sp.start:sp.end])
	}
	n := b.node(yaml.ScalarNode, yaml.NodeTagString, at-1)
	n.Value = v
	n.Style = yaml.DoubleQuotedStyle
	if t.quote() == '\'' {
		n.Style = yaml.SingleQuotedStyle
	}
	b.comment(n, t.next)
	return true
}

// comment gives n the comment at line[k], if there is one.
func (b *builder) comment(n *yaml.Node, k int) {
	if k < len(b.line) && b.line[k] == '#' {
		n.LineComment = b.text[b.off+k : b.off+len(b.line)]
	}
}

// null adds the null value of a key or dash with nothing after it, at the
// column after the indicator.
func (b *builder) null(line int, col int) {
	n := b.node(yaml.ScalarNode, yaml.NodeTagNull, 0)
	n.Line, n.Column = line, col
}

// startBlock begins a literal block scalar at line[k] (its indicator).
func (b *builder) startBlock(k int, chomp byte) {
	b.block = b.node(yaml.ScalarNode, yaml.NodeTagString, k)
	b.block.Style = yaml.LiteralStyle
	b.chomp, b.value, b.content = chomp, b.value[:0], -1
	b.large = nil
	if rest := len(b.text) - b.off - len(b.line); rest > largeBlock {
		if n := b.blockExtent(); n > largeBlock {
			b.large = &strings.Builder{}
			b.large.Grow(n)
		}
	}
}

// blockExtent is the length of the lines after the current one that are
// blank or indented deeper than it: those a block scalar starting on it
// may span, at least as long as its value.
func (b *builder) blockExtent() int {
	indent := spaces(b.line)
	start := b.off + len(b.line)
	if b.brk {
		start++
	}
	end := start
	for end < len(b.text) {
		line := b.text[end:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		sp := 0
		for sp < len(line) && line[sp] == ' ' {
			sp++
		}
		if sp <= indent && strings.TrimRight(line[sp:], "\r\n") != "" {
			break
		}
		end += len(line)
	}
	return end - start
}

// add appends to the block scalar's value.
func (b *builder) add(p []byte) {
	if b.large != nil {
		b.large.Write(p)
		return
	}
	b.value = append(b.value, p...)
}

// valueLen is the length of the block scalar's value so far.
func (b *builder) valueLen() int {
	if b.large != nil {
		return b.large.Len()
	}
	return len(b.value)
}

// blockLine adds a line of the block scalar whose content is at column
// indent (0: not yet known, the line is empty). A line of spaces beyond
// the indentation is unsure.
func (b *builder) blockLine(line []byte, indent int) bool {
	if indent == 0 || spaces(line) == len(line) {
		if indent > 0 && len(line) > indent {
			return false
		}
	} else {
		b.add(line[indent:])
	}
	if b.brk {
		b.add(lineBreak)
	}
	if indent > 0 && spaces(line) < len(line) {
		b.content = b.valueLen()
	}
	return true
}

var lineBreak = []byte{'\n'}

// endBlock sets the block scalar's value, chomped; an empty one is unsure.
func (b *builder) endBlock() bool {
	if b.content < 0 {
		return false
	}
	if b.large != nil {
		v := b.large.String()
		switch b.chomp {
		case 0:
			v = v[:b.content]
		case '-':
			v = strings.TrimSuffix(v[:b.content], "\n")
		}
		b.block.Value, b.large = v, nil
		b.block = nil
		return true
	}
	v := b.value
	switch b.chomp {
	case 0:
		v = v[:b.content]
	case '-':
		v = bytes.TrimSuffix(v[:b.content], []byte("\n"))
	}
	b.block.Value = string(v)
	b.block = nil
	return true
}
