package scan

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// List is where the parts of a block-style ResourceList sit, as Split
// found them: its root keys, each at column 0 with its value on the lines
// below, and its items' entries, split at their dashes.
type List struct {
	src      []byte
	Keys     []RootKey
	KeyLines []int  // each key's line (1-based)
	Before   []bool // a comment line right before each key
	After    bool   // a comment line after the last key's value
	Entries  []Entry
	SeqCol   int  // the items' dashes' column (0-based)
	Lead     bool // a comment before the first item
	// NoTabs is set when the list has no tab anywhere: a Scanner of its
	// entries need not look for one on every line (Scanner.NoTabs).
	NoTabs bool
	// scanned is, when SplitScan made the list, what the scan read of each
	// entry.
	scanned []entryScanned
}

// RootKey is a key of the ResourceList and its value: its lines, from the
// key's to the next key's.
type RootKey struct {
	Name       string
	Start, End int
}

// Entry is where an item of the input sits: from its dash line to the next
// item's (or the end of the items), and the comment lines right above its
// dash (which lie in the previous item's lines).
type Entry struct {
	Start, End int32
	Above      int32 // where the comment lines above the dash start
	NAbove     int32 // how many there are
	Line       int32 // the dash's line, 1-based
}

// Split finds the root keys and the items' entries of a ResourceList, or
// reports false when it cannot be sure of them (flow style, document
// markers, tabs or odd characters, lines out of place, no items...): the
// list is then to be parsed whole.
func Split(src []byte) (*List, bool) {
	return split(src, nil)
}

// SplitScan is Split, and it scans every entry with s as Scanner.Scan
// would, in the same pass over the items' lines: the list's Item says what
// the scan read. It sets s.NoTabs.
func SplitScan(src []byte, s *Scanner) (*List, bool) {
	return split(src, s)
}

// split is Split, and SplitScan when s is not nil.
func split(src []byte, s *Scanner) (*List, bool) {
	if len(src) >= math.MaxInt32 {
		return nil, false
	}
	ok, tabs := readText(src)
	if !ok {
		return nil, false
	}
	l := &List{src: src, NoTabs: !tabs, Entries: make([]Entry, 0, 16)}
	l.Keys, l.KeyLines, l.Before = make([]RootKey, 0, 4), make([]int, 0, 4), make([]bool, 0, 4)
	if s != nil {
		s.NoTabs = l.NoTabs
		s.kept.items, s.kept.text, s.kept.kvs = s.kept.items[:0], s.kept.text[:0], s.kept.kvs[:0]
	}
	ok = l.root(s)
	if s != nil {
		s.keys.reset(nil) // holds no list
		if ok {
			l.scanned = s.keptItems()
		}
	}
	if !ok {
		return nil, false
	}
	return l, true
}

// plainText reports whether in is UTF-8 text whose lines break at "\n"
// (or "\r\n") only and that yaml.v3 reads without complaint about its
// characters: no control characters, no byte order mark but the first.
func plainText(in []byte) bool {
	ok, _ := readText(in)
	return ok
}

// readText reports whether in is plain text (plainText), and whether it
// has a tab.
func readText(in []byte) (ok, tabs bool) {
	for i := 0; i < len(in); {
		if i+8 <= len(in) && printable(binary.LittleEndian.Uint64(in[i:])) {
			i += 8
			continue
		}
		c := in[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			tabs = tabs || c == '\t'
			i++
			continue
		}
		if c == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i += 2
			continue
		}
		if c < 0x80 {
			return false, false
		}
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && size <= 1 || r <= 0x9f || r == 0x2028 || r == 0x2029 ||
			r == 0xfffe || r == 0xffff || r == 0xfeff && i != 0 {
			return false, false
		}
		i += size
	}
	return true, tabs
}

// printable reports whether the 8 bytes of w are all printable ASCII
// (0x20 to 0x7e) or line breaks ('\n'), with no branch per byte: a
// line's break then costs no slower step. Each byte is tested on its own
// (no carry or borrow crosses into the next byte).
func printable(w uint64) bool {
	const highs, lows = 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	if w&highs != 0 {
		return false
	}
	// All bytes are below 0x80: adding 0x60 to each sets its high bit
	// when it is 0x20 or more; adding 0x7f to each sets it when it is
	// not 0.
	below := ^(w + 0x60*ones) & highs
	newline := ^((w ^ '\n'*ones) + lows) & highs
	del := ^((w ^ 0x7f*ones) + lows) & highs
	return below&^newline|del == 0
}

const ones = 0x0101010101010101

// root finds the root keys, each at column 0 with its value on its line or
// the lines below; the items are split (and scanned with s, when it is not
// nil) as they are met.
func (sp *List) root(s *Scanner) bool {
	src := sp.src
	i, line := 0, 1
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	comment := false // a comment line since the last content line
	for i < len(src) {
		e, next := lineEnd(src, i)
		l := src[i:e]
		switch ind := spaces(l); {
		case ind == len(l):
		case l[ind] == '#':
			comment = true
		case l[ind] == '\t':
			return false
		case ind > 0 || isDash(l, 0):
			// A line of the last key's value (at column 0: an entry of
			// its sequence); the items' lines were all split already.
			if len(sp.Keys) == 0 || sp.Keys[len(sp.Keys)-1].Name == "items" {
				return false
			}
			comment = false
		default:
			name, rest, ok := rootKeyLine(l)
			if !ok {
				return false
			}
			start := i
			if line == 1 {
				start = 0 // the byte order mark is the first line's
			}
			if n := len(sp.Keys); n > 0 {
				sp.Keys[n-1].End = start
			}
			sp.Keys = append(sp.Keys, RootKey{Name: name, Start: start})
			sp.KeyLines = append(sp.KeyLines, line)
			sp.Before = append(sp.Before, comment)
			comment = false
			if name == "items" {
				end, endLine, ok := sp.split(next, line+1, rest, s)
				if !ok {
					return false
				}
				i, line = end, endLine
				continue
			}
		}
		i, line = next, line+1
	}
	if n := len(sp.Keys); n > 0 && sp.Keys[n-1].Name != "items" {
		sp.Keys[n-1].End = len(src)
	}
	sp.After = comment
	return len(sp.Keys) > 0
}

// rootKeyLine reads a root key's line: a plain key of letters, digits and
// ".-_/", a colon, and the rest of the line.
func rootKeyLine(l []byte) (name string, rest []byte, ok bool) {
	for j, c := range l {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case j > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == '/'):
		case j > 0 && c == ':' && (j+1 == len(l) || l[j+1] == ' '):
			return rootKeyName(l[:j]), l[j+1:], true
		default:
			return "", nil, false
		}
	}
	return "", nil, false
}

// rootKeyName returns name as a string, without a copy for the keys of a
// ResourceList.
func rootKeyName(name []byte) string {
	switch string(name) {
	case "apiVersion":
		return "apiVersion"
	case "kind":
		return "kind"
	case "items":
		return "items"
	case "functionConfig":
		return "functionConfig"
	case "results":
		return "results"
	}
	return string(name)
}

// split finds the items' entries, from the line after "items:" (at start,
// line) to the next root key: every dash at the first dash's column
// starts an entry, and every other line is deeper, a comment or empty. It
// returns where the items end, and that line's number. With a Scanner, it
// scans each entry's lines as it meets them (entryScan).
func (sp *List) split(start, line int, rest []byte, s *Scanner) (int, int, bool) {
	if r := bytes.TrimLeft(rest, " "); len(r) > 0 {
		if r[0] != '#' {
			return 0, 0, false
		}
		sp.Lead = true
	}
	src, col := sp.src, -1
	floor := sp.Keys[len(sp.Keys)-1].Start
	es := entryScan{s: s}
	i := start
	above := false // the line above may be a comment line (isCommentLine)
loop:
	for i < len(src) {
		e, next := lineEnd(src, i)
		l := src[i:e]
		ind := spaces(l)
		comment := ind < len(l) && (l[ind] == '#' || l[ind] == '\t')
		switch {
		case ind == len(l), col >= 0 && ind > col:
			es.line(l, ind, i, col)
		case l[ind] == '#':
			sp.Lead = sp.Lead || col < 0
			es.line(l, ind, i, col)
		case l[ind] == '\t':
			return 0, 0, false
		case isDash(l, ind) && (col < 0 || ind == col):
			e := Entry{Start: int32(i), Line: int32(line), Above: int32(i)}
			if above {
				e = NewEntry(src, i, line, floor)
			}
			if n := len(sp.Entries); n > 0 {
				sp.Entries[n-1].End = int32(i)
			}
			es.next(col >= 0, len(sp.Entries) > 0)
			sp.Entries, col, floor = append(sp.Entries, e), ind, i
			es.start(src, l, ind, i)
		case ind == 0 && col >= 0:
			break loop // the next root key
		default:
			return 0, 0, false
		}
		i, line, above = next, line+1, comment
	}
	if col < 0 {
		return 0, 0, false // no items: the list is read whole
	}
	sp.Entries[len(sp.Entries)-1].End = int32(i)
	es.end()
	sp.Keys[len(sp.Keys)-1].End = i
	sp.SeqCol = col
	return i, line, true
}

// entryScan is the scan of the entry split is in (SplitScan): split hands
// it every line of the entry, from its dash line on, as Scanner.Scan reads
// them; it does nothing without a Scanner.
type entryScan struct {
	s    *Scanner
	sure bool // the scan is sure of the entry's lines so far
}

// start begins the scan of an entry at its dash line l (at offset at),
// its dash at column col.
func (es *entryScan) start(src, l []byte, col, at int) {
	if es.s != nil {
		es.s.reset(src)
		es.s.at = at
		es.sure = es.s.line(l, col, true, col)
	}
}

// line reads a line of the entry (after its dash line) with ind spaces
// first, at offset at; col < 0 means no entry has begun.
func (es *entryScan) line(l []byte, ind, at, col int) {
	if es.sure && col >= 0 {
		es.s.at = at
		es.sure = es.s.line(l, ind, false, col)
	}
}

// next ends the scan of the entry before a dash, when one began in this
// items key. Otherwise, if earlier, the dash is the first of a second items
// key, and the entry before it the last of the first, which split lets
// run to here: its scan would not be sure of the lines it now has, the
// key's among them.
func (es *entryScan) next(began, earlier bool) {
	switch {
	case es.s == nil:
	case began:
		es.end()
	case earlier:
		es.s.kept.items[len(es.s.kept.items)-1] = keptItem{}
	}
}

// end ends the scan of an entry: the Scanner keeps what it read.
func (es *entryScan) end() {
	if es.s == nil {
		return
	}
	sure := es.sure && es.s.finish()
	es.s.keep(sure, sure && es.s.Comment())
	es.sure = false
}

// NewEntry returns the entry whose dash line starts at start, line line;
// no comment line above it starts at or before floor (the previous dash's
// line, or the key's).
func NewEntry(src []byte, start, line, floor int) Entry {
	above, n := commentsAbove(src, start, floor)
	return Entry{Start: int32(start), Line: int32(line), Above: int32(above), NAbove: int32(n)}
}

// commentsAbove returns where the comment lines right above the line at
// dash start, and how many there are; none start at or before floor.
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
