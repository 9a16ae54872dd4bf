// Package scan reads a block-style ResourceList as text, for the lazy
// reading of package resourcelist: Split finds the root keys and the items'
// entries line by line, a Scanner reads one entry (its lines, from its dash
// to the next item's) without building nodes — it checks that yaml.v3 reads
// the entry as the scan does, and reads the item's header — and Build makes
// the entry's nodes exactly as yaml.v3 would. It knows the YAML that kpt,
// kustomize and Porch write: block mappings and sequences, one-line plain
// and quoted scalars, one-line flow collections, literal and folded block
// scalars, comments. Anything else (tags, anchors, multi-line scalars, tabs
// outside block scalars, unusual escapes, a key written twice...) makes it
// unsure, and the caller has yaml.v3 parse the entry instead: the scan never
// guesses. FuzzScan holds it to yaml.v3 entry by entry, and package
// resourcelist's FuzzLazy holds the whole lazy reading to yaml.v3's.
package scan

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// frame is a block collection being read.
type frame struct {
	indent int // column (0-based) of its keys or dashes
	seq    bool
	f      field
	node   *yaml.Node // when building: its node,
	start  int        // and where its children start among the builder's kids
}

// pending is a value announced by a key or a dash with nothing after it:
// a collection on the next lines, or null.
type pending struct {
	active bool
	indent int // column of the collection the key or dash is in
	key    bool
	f      field
	at     [2]int // when building: where a null value would be (line, column)
	// keyNote is, when building, the key a comment after it on its line
	// belongs to (the comment in the key's LineComment), should a
	// collection follow: kpt's `metadata: # kpt-merge: ...`.
	keyNote *yaml.Node
}

// blockScalar is a literal or folded scalar being read.
type blockScalar struct {
	active   bool
	parent   int // column of the collection it is in
	indent   int // column of its content, 0 until its first line says
	maxBlank int // the most spaces on its leading empty lines
}

// kv is a label or annotation: key and value in Scanner.text.
type kv struct {
	k, v   span
	scalar bool // the value is a scalar (others do not count)
}

// Scanner reads entries one after another, reusing its buffers; its zero
// value is ready. A Scanner is used on one goroutine.
type Scanner struct {
	stack   []frame
	pend    pending
	block   blockScalar
	text    []byte  // the header's strings, end to end
	vals    [4]span // apiVersion, kind, name, namespace
	labels  []kv
	annots  []kv
	hasLbl  bool
	hasAnn  bool
	rootSet bool // the item's mapping began
	nodes   int  // how many nodes the entry has
	// comment is set by a comment line after the last content line: a
	// comment between two items, which yaml.v3 may attach to either
	// (Comment).
	comment bool
	b       *builder // set when the scan builds the item's nodes
	// keys are the keys of the mappings being read (scankeys.go), when
	// scanning: building, the scan reads an entry it found without a key
	// written twice.
	keys *keyCheck
	at   int // where the line being read starts in the list
	// NoTabs tells the scan that its input has no tab (List.NoTabs): it
	// does not look for one on each line.
	NoTabs bool
	kept   kept // what SplitScan keeps of the entries
}

// maxDepth bounds the nesting the scan follows.
const maxDepth = 100

func (s *Scanner) reset(src []byte) {
	s.stack, s.text, s.labels, s.annots = s.stack[:0], s.text[:0], s.labels[:0], s.annots[:0]
	s.pend, s.block, s.vals = pending{}, blockScalar{}, [4]span{}
	s.hasLbl, s.hasAnn, s.rootSet, s.comment, s.nodes = false, false, false, false, 0
	if s.b == nil && s.keys == nil {
		s.keys = &keyCheck{}
	}
	s.keys.reset(src)
}

// Scan reads the entry src[start:end] whose dash is at column col
// (0-based), and reports whether it is sure of it; then Item returns what
// it read.
func (s *Scanner) Scan(src []byte, start, end, col int) bool {
	s.reset(src)
	for i, num := start, 0; i < end; num++ {
		e, next := lineEnd(src[:end], i)
		s.at = i
		if s.b != nil {
			s.b.newLine(src[i:e], i-start, s.b.first+num, next > e && src[next-1] == '\n')
		}
		if !s.line(src[i:e], spaces(src[i:e]), i == start, col) {
			return false
		}
		i = next
	}
	return s.finish()
}

// Build returns the nodes of the entry src[start:end], whose dash is at
// column col (0-based) on line line (1-based), or nil when the builder
// cannot be sure of them: the entry has comment lines, or what the builder
// does not make. The entry is one Scan was sure of, and nodes is its
// Item's Nodes. Build is called on a zero Scanner (it does not check the
// keys again).
func (s *Scanner) Build(src []byte, start, end, col, line, nodes int) *yaml.Node {
	s.b = &builder{text: string(src[start:end]), first: line, size: nodes}
	defer func() { s.b = nil }()
	if !s.Scan(src, start, end, col) {
		return nil
	}
	return s.b.root
}

// lineEnd returns the end of the line starting at i (before its break) and
// the start of the next one.
func lineEnd(src []byte, i int) (end, next int) {
	j := bytes.IndexByte(src[i:], '\n')
	if j < 0 {
		end, next = len(src), len(src)
	} else {
		end, next = i+j, i+j+1
	}
	if end > i && src[end-1] == '\r' {
		end--
	}
	return end, next
}

// line reads a line of the entry, which starts with ind spaces; first
// says it is the dash's, at column col.
func (s *Scanner) line(line []byte, ind int, first bool, col int) bool {
	if s.block.active {
		switch s.blockLine(line, ind) {
		case inBlock:
			s.comment = false
			return s.b == nil || s.b.blockLine(line, s.block.indent)
		case badBlock:
			return false
		}
		if s.b != nil && !s.b.endBlock() {
			return false
		}
	}
	switch {
	case ind == len(line):
		return true
	case line[ind] == '#':
		s.comment = true
		return s.b == nil // the builder places no comment lines
	case !s.NoTabs && bytes.IndexByte(line, '\t') >= 0:
		return false
	}
	s.comment = false
	if first {
		return s.dash(line, col)
	}
	return s.content(line, ind)
}

// dash reads the item's first line: its dash, and what follows it.
func (s *Scanner) dash(line []byte, col int) bool {
	k := col + 1 + spaces(line[col+1:])
	if k == len(line) || line[k] == '#' {
		return s.announce(line, k, col+1, pending{active: true, indent: col, f: fRoot})
	}
	return s.node(line, k, col, fRoot)
}

// content reads a line of block structure at indentation ind.
func (s *Scanner) content(line []byte, ind int) bool {
	dash := isDash(line, ind)
	if s.pend.active {
		p := &s.pend
		p.active = false
		if ind > p.indent || (ind == p.indent && p.key && dash) {
			if !s.push(ind, dash, p.f) {
				return false
			}
			return s.inFrame(line, ind, dash)
		}
		if !s.nullAt(*p) {
			return false
		}
	}
	for n := len(s.stack); n > 0; n = len(s.stack) {
		top := &s.stack[n-1]
		// Deeper collections end, and so does a sequence at its key's
		// column ("key:" then "- a") when the line is not an entry.
		if top.indent > ind || (top.seq && !dash && top.indent == ind && n > 1 && s.stack[n-2].indent == ind) {
			s.pop()
			continue
		}
		break
	}
	if len(s.stack) == 0 || s.stack[len(s.stack)-1].indent != ind {
		return false
	}
	return s.inFrame(line, ind, dash)
}

func isDash(line []byte, i int) bool {
	return line[i] == '-' && (i+1 == len(line) || line[i+1] == ' ')
}

// inFrame reads a line at the column of the innermost collection: an
// entry of a sequence, or a key of a mapping.
func (s *Scanner) inFrame(line []byte, ind int, dash bool) bool {
	if s.stack[len(s.stack)-1].seq != dash {
		return false
	}
	if dash {
		k := ind + 1 + spaces(line[ind+1:])
		if k == len(line) || line[k] == '#' {
			return s.announce(line, k, ind+1, pending{active: true, indent: ind, f: fOther})
		}
		return s.node(line, k, ind, fOther)
	}
	t, ok := readScalar(line, ind, false)
	if !ok || !t.key() {
		return false
	}
	return s.keyValue(line, t)
}

// announce records a value announced at the end of a line (at k: its end
// or a comment), by an indicator that ends before after. A comment there
// is one yaml.v3 attaches to what comes next, which may be the next item:
// it counts as a comment line (and the builder places none).
func (s *Scanner) announce(line []byte, k, after int, p pending) bool {
	s.comment = k < len(line)
	if s.b != nil {
		p.at = [2]int{s.b.num, s.b.col(after)}
		if s.comment && p.key {
			// yaml.v3 gives it to the key when a collection follows
			// (content); before a null, the builder is unsure.
			p.keyNote = s.b.kids[len(s.b.kids)-1]
			s.b.comment(p.keyNote, k)
			s.pend = p
			return true
		}
	}
	s.pend = p
	return s.b == nil || !s.comment
}

// push opens a block collection at column ind, the value of field f.
func (s *Scanner) push(ind int, seq bool, f field) bool {
	if len(s.stack) >= maxDepth || !s.collection(f, !seq) {
		return false
	}
	if !seq {
		s.keys.begin()
	}
	// The frame is written in place and read field by field: a frame
	// copied in was read back wider than written (a store-forwarding
	// stall per collection).
	if len(s.stack) < cap(s.stack) {
		s.stack = s.stack[:len(s.stack)+1]
	} else {
		s.stack = append(s.stack, frame{})
	}
	fr := &s.stack[len(s.stack)-1]
	fr.indent, fr.seq, fr.f, fr.start = ind, seq, f, 0
	switch {
	case s.b != nil:
		fr.node, fr.start = s.b.open(seq, false, ind)
	case fr.node != nil: // not written when nil already: a write barrier
		fr.node = nil
	}
	return true
}

// pop closes the innermost block collection.
func (s *Scanner) pop() {
	fr := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if !fr.seq {
		s.keys.end()
	}
	if s.b != nil {
		s.b.close(fr.node, fr.start)
	}
}

// nullAt records the null value a pending key or dash had.
func (s *Scanner) nullAt(p pending) bool {
	if !s.null(p.f) || p.keyNote != nil {
		return false
	}
	if s.b != nil {
		s.b.null(p.at[0], p.at[1])
	}
	return true
}

// node reads a node that starts at line[k], after a dash at column parent:
// a mapping (its first key), a scalar, a flow collection or a block scalar.
func (s *Scanner) node(line []byte, k, parent int, f field) bool {
	switch line[k] {
	case '{':
		return s.flowValue(line, k, f)
	case '[', '|', '>':
		if f == fRoot {
			return false
		}
		if line[k] == '[' {
			return s.flowValue(line, k, f)
		}
		return s.blockHeader(line, k, parent, f)
	}
	t, ok := readScalar(line, k, false)
	if !ok {
		return false
	}
	if !t.key() {
		return f != fRoot && s.scalar(f, line, t)
	}
	if !s.push(k, false, f) {
		return false
	}
	return s.keyValue(line, t)
}

// keyValue reads what follows a key of the innermost mapping on its line.
func (s *Scanner) keyValue(line []byte, t tok) bool {
	m := &s.stack[len(s.stack)-1]
	mind := m.indent
	f, ok := s.key(m.f, line, t)
	if !ok {
		return false
	}
	j := t.next + spaces(line[t.next:])
	if j == len(line) || line[j] == '#' {
		return s.announce(line, j, t.next, pending{active: true, indent: mind, key: true, f: f})
	}
	switch line[j] {
	case '[', '{':
		return s.flowValue(line, j, f)
	case '|', '>':
		return s.blockHeader(line, j, mind, f)
	}
	v, ok := readScalar(line, j, false)
	return ok && !v.key() && s.scalar(f, line, v)
}

// finish ends the entry: a value still announced is null.
func (s *Scanner) finish() bool {
	if s.pend.active && !s.nullAt(s.pend) {
		return false
	}
	if s.b != nil {
		if s.block.active && !s.b.endBlock() {
			return false
		}
		for len(s.stack) > 0 {
			s.pop()
		}
	}
	return s.rootSet
}
