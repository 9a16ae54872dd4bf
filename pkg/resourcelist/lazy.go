package resourcelist

import (
	"bytes"
	"math"
	"slices"
	"sync"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/parallel"
)

// minScanRun is the fewest items worth a goroutine of their own when the
// list is split: scanning one takes about a microsecond.
const minScanRun = 1024

// A ResourceList read lazily: its root keys are found line by line (each
// at column 0, its value on the lines below), every key but the items is
// parsed by yaml.v3 on its own, and the items are split at their dashes
// and scanned (scan.go). An item's nodes are parsed from its entry when a
// function asks for them. Whatever the split cannot be sure of (flow
// style, documents markers, anchors, tabs or comments in odd places...)
// makes Parse read the list whole with yaml.v3, as it always did.

// lazyList is what reading the items' nodes needs.
type lazyList struct {
	// glue[i] says a comment sits between item i and the next (or the end
	// of the items, for the last one). yaml.v3 may attach such a comment
	// to either item, so the items it joins are parsed together, and a
	// run of items that reaches a comment before the first item (lead) or
	// after the last is parsed with the whole list.
	glue []bool
	lead bool
	mu   sync.Mutex
	runs map[int][]*yaml.Node // runs of glued entries parsed, by their first item
}

// splitter finds the root keys and the items' entries of a ResourceList.
type splitter struct {
	src     []byte
	keys    []rootKey
	keyLine []int  // each key's line (1-based)
	before  []bool // a comment line right before each key
	after   bool   // a comment line after the last key's value
	entries []entry
	seqCol  int // the items' dashes' column (0-based)
	lead    bool
}

// parseLazy reads a ResourceList lazily, or returns nil when the list is
// to be parsed whole (which also gives the errors).
func parseLazy(in []byte) *ResourceList {
	if len(in) >= math.MaxInt32 || !plainText(in) {
		return nil
	}
	sp := splitter{src: in}
	if !sp.root() {
		return nil
	}
	rl := &ResourceList{src: in}
	if !sp.items(rl) || !sp.rootValues(rl) {
		return nil
	}
	rl.layout = layout{ok: true, keys: sp.keys, entries: len(rl.items) > 0, seqCol: sp.seqCol + 1}
	return rl
}

// plainText reports whether in is UTF-8 text whose lines break at "\n"
// (or "\r\n") only and that yaml.v3 reads without complaint about its
// characters: no control characters, no byte order mark but the first.
func plainText(in []byte) bool {
	for i := 0; i < len(in); {
		c := in[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i += 2
			continue
		}
		if c < 0x80 {
			return false
		}
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && size <= 1 || r <= 0x9f || r == 0x2028 || r == 0x2029 ||
			r == 0xfffe || r == 0xffff || r == 0xfeff && i != 0 {
			return false
		}
		i += size
	}
	return true
}

// root finds the root keys, each at column 0 with its value on its line or
// the lines below; the items are split as they are met.
func (sp *splitter) root() bool {
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
			if len(sp.keys) == 0 || sp.keys[len(sp.keys)-1].name == "items" {
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
			if n := len(sp.keys); n > 0 {
				sp.keys[n-1].end = start
			}
			sp.keys = append(sp.keys, rootKey{name: name, start: start})
			sp.keyLine = append(sp.keyLine, line)
			sp.before = append(sp.before, comment)
			comment = false
			if name == "items" {
				end, endLine, ok := sp.split(next, line+1, rest)
				if !ok {
					return false
				}
				i, line = end, endLine
				continue
			}
		}
		i, line = next, line+1
	}
	if n := len(sp.keys); n > 0 && sp.keys[n-1].name != "items" {
		sp.keys[n-1].end = len(src)
	}
	sp.after = comment
	return len(sp.keys) > 0
}

// rootKeyLine reads a root key's line: a plain key of letters, digits and
// ".-_/", a colon, and the rest of the line.
func rootKeyLine(l []byte) (name string, rest []byte, ok bool) {
	for j, c := range l {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case j > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == '/'):
		case j > 0 && c == ':' && (j+1 == len(l) || l[j+1] == ' '):
			return string(l[:j]), l[j+1:], true
		default:
			return "", nil, false
		}
	}
	return "", nil, false
}

// split finds the items' entries, from the line after "items:" (at start,
// line) to the next root key: every dash at the first dash's column starts
// an entry, and every other line is deeper, a comment or empty. It returns
// where the items end, and that line's number.
func (sp *splitter) split(start, line int, rest []byte) (int, int, bool) {
	if r := bytes.TrimLeft(rest, " "); len(r) > 0 {
		if r[0] != '#' {
			return 0, 0, false
		}
		sp.lead = true
	}
	src, col := sp.src, -1
	floor := sp.keys[len(sp.keys)-1].start
	i := start
loop:
	for i < len(src) {
		e, next := lineEnd(src, i)
		l := src[i:e]
		switch ind := spaces(l); {
		case ind == len(l), col >= 0 && ind > col:
		case l[ind] == '#':
			sp.lead = sp.lead || col < 0
		case l[ind] == '\t':
			return 0, 0, false
		case isDash(l, ind) && (col < 0 || ind == col):
			e := newEntry(src, i, line, floor)
			if n := len(sp.entries); n > 0 {
				sp.entries[n-1].end = int32(i)
			}
			sp.entries, col, floor = append(sp.entries, e), ind, i
		case ind == 0 && col >= 0:
			break loop // the next root key
		default:
			return 0, 0, false
		}
		i, line = next, line+1
	}
	if col < 0 {
		return 0, 0, false // no items: the list is read whole
	}
	sp.entries[len(sp.entries)-1].end = int32(i)
	sp.keys[len(sp.keys)-1].end = i
	sp.seqCol = col
	return i, line, true
}

// items scans every entry, the entries shared among a few goroutines, and
// makes the items: with the header the scan read, or, where it was unsure,
// the one yaml.v3 reads from the entry.
func (sp *splitter) items(rl *ResourceList) bool {
	n := len(sp.entries)
	if n == 0 {
		return true
	}
	slab := make([]Item, n)
	rl.items = make([]*Item, n)
	rl.lazy = &lazyList{glue: make([]bool, n), lead: sp.lead}
	var (
		w     = parallel.Workers(n, minScanRun)
		scans = make([]itemScan, w)
		bad   = make([]bool, w)
		null  = make([]bool, n) // an empty entry, read by yaml.v3
	)
	parallel.Do(n, w, func(w, i int) {
		e := sp.entries[i]
		it := &slab[i]
		*it = Item{rl: rl, pos: i, entry: e}
		rl.items[i] = it
		if s := &scans[w]; s.scan(sp.src, int(e.start), int(e.end), sp.seqCol) {
			it.scan = s.result()
			rl.lazy.glue[i] = s.comment
			return
		}
		nodes, ok := parseEntries(sp.src[e.start:e.end], int(e.line), 1)
		if !ok || hasDuplicates(nodes[0]) {
			bad[w] = true // parsed whole, which reports the duplicates
			return
		}
		h := readHeader(yaml.NewRNode(nodes[0]), i)
		it.hdr = &h
		rl.lazy.glue[i] = bytes.IndexByte(sp.src[e.start:e.end], '#') >= 0
		null[i] = nodes[0].Kind == yaml.ScalarNode && nodes[0].Tag == yaml.NodeTagNull
	})
	if slices.Contains(bad, true) {
		return false
	}
	for i := range null {
		if null[i] {
			// A comment before an empty entry goes to what follows it.
			rl.lazy.glue[i] = true
			if i > 0 {
				rl.lazy.glue[i-1] = true
			}
		}
	}
	// A comment after the last item is one before the next root key.
	for k, key := range sp.keys {
		if key.name == "items" && rl.lazy.glue[n-1] {
			if k+1 < len(sp.keys) {
				sp.before[k+1] = true
			} else {
				sp.after = true
			}
		}
	}
	return true
}

// rootValues parses every root key's value but the items', each on its
// own, and keeps the functionConfig and the results. The list is read
// whole (nil) when a key repeats (a root key, or a key of a mapping in a
// value), when it is not a ResourceList, or when a
// comment sits next to the functionConfig or the results (yaml.v3 may
// attach it to their nodes).
func (sp *splitter) rootValues(rl *ResourceList) bool {
	var h Header
	seen := map[string]bool{}
	for k, key := range sp.keys {
		if seen[key.name] {
			return false
		}
		seen[key.name] = true
		if key.name == "items" {
			continue
		}
		after := sp.after
		if k+1 < len(sp.keys) {
			after = sp.before[k+1]
		}
		if (key.name == "functionConfig" || key.name == "results") && (sp.before[k] || after) {
			return false
		}
		v, ok := parseValue(sp.src[key.start:key.end], sp.keyLine[k])
		if !ok || hasDuplicates(v) {
			return false
		}
		switch key.name {
		case "apiVersion":
			h.APIVersion = scalarValue(v)
		case "kind":
			h.Kind = scalarValue(v)
		case "functionConfig":
			rl.setRoot(&yaml.MapNode{Value: yaml.NewRNode(v)}, nil)
		case "results":
			rl.setRoot(nil, &yaml.MapNode{Value: yaml.NewRNode(v)})
		}
	}
	return checkKind(h) == nil
}
