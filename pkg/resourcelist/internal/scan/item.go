package scan

import (
	"slices"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

// Item is what the scan read of an item's entry: its header's strings end
// to end in text, and spans of them, and how many nodes the entry has. It
// is what an untouched item costs beyond its bytes; the maps of its labels
// and annotations are made when they are asked for.
type Item struct {
	text          string
	vals          [4]span // apiVersion, kind, name, namespace
	kvs           []span  // labels then annotations: key, value, key, value...
	nLabels       int     // how many of kvs are labels' (keys and values)
	hasLabels     bool    // labels is a mapping (an empty one included)
	hasAnnotation bool
	nodes         int // how many nodes the entry has
}

// span is a string of a scanned header: a range of its text, or, with
// the static bit set in start, one of the staticKeys.
type span struct{ start, end uint32 }

const static = 1 << 31

func (s *Item) str(sp span) string {
	if sp.start&static != 0 {
		return staticKeys[sp.start&^static]
	}
	return s.text[sp.start:sp.end]
}

// staticKeys are the annotation keys (kpt's, kptkit's) that nearly every
// item of a list has: its header points at these instead of keeping a
// copy of each.
var staticKeys = [...]string{
	kptfile.AnnotationPath, kptfile.AnnotationIndex, kptfile.AnnotationInternalPath, kptfile.AnnotationInternalIndex,
	kptfile.AnnotationLocalConfig, kptfile.AnnotationConfigInjection, v1alpha1.AnnotationInCluster,
}

// staticKey returns the span of key when it is one of the staticKeys.
func staticKey(key []byte) (span, bool) {
	for i, k := range staticKeys {
		if string(key) == k {
			return span{start: static | uint32(i)}, true
		}
	}
	return span{}, false
}

// APIVersion is the item's apiVersion ("" when it is not a string).
func (s *Item) APIVersion() string { return s.str(s.vals[0]) }

// Kind is the item's kind ("" when it is not a string).
func (s *Item) Kind() string { return s.str(s.vals[1]) }

// Name is the item's metadata.name ("" when it is not a string).
func (s *Item) Name() string { return s.str(s.vals[2]) }

// Namespace is the item's metadata.namespace ("" when it is not a string).
func (s *Item) Namespace() string { return s.str(s.vals[3]) }

// Labels returns the item's labels with a scalar value, or nil when
// metadata.labels is not a mapping.
func (s *Item) Labels() map[string]string {
	if !s.hasLabels {
		return nil
	}
	return s.strMap(s.kvs[:s.nLabels])
}

// Annotations returns the item's annotations with a scalar value, or nil
// when metadata.annotations is not a mapping.
func (s *Item) Annotations() map[string]string {
	if !s.hasAnnotation {
		return nil
	}
	return s.strMap(s.kvs[s.nLabels:])
}

// Path is the file the item comes from, as its annotations say (kpt's
// internal path first, then its path; "" for none), read without making
// the map of its annotations.
func (s *Item) Path() string {
	if !s.hasAnnotation {
		return ""
	}
	if p := s.annotation(kptfile.AnnotationInternalPath); p != "" {
		return p
	}
	return s.annotation(kptfile.AnnotationPath)
}

// annotation returns the value of an annotation with a scalar value, or "".
func (s *Item) annotation(key string) string {
	kvs := s.kvs[s.nLabels:]
	for i := 0; i+1 < len(kvs); i += 2 {
		if s.str(kvs[i]) == key {
			return s.str(kvs[i+1])
		}
	}
	return ""
}

// Nodes is how many nodes the entry has, for Build.
func (s *Item) Nodes() int { return s.nodes }

func (s *Item) strMap(kvs []span) map[string]string {
	m := make(map[string]string, len(kvs)/2)
	for i := 0; i+1 < len(kvs); i += 2 {
		m[s.str(kvs[i])] = s.str(kvs[i+1])
	}
	return m
}

// Item returns what the last Scan read (when it was sure).
func (s *Scanner) Item() *Item {
	out := &Item{text: string(s.text), vals: s.vals, hasLabels: s.hasLbl, hasAnnotation: s.hasAnn, nodes: s.nodes}
	n := s.scalarKVs()
	if n > 0 {
		out.kvs = make([]span, 0, n)
	}
	out.kvs, out.nLabels = s.appendKVs(out.kvs, 0)
	return out
}

// scalarKVs returns how many spans the labels and annotations with a
// scalar value take (a key and a value each).
func (s *Scanner) scalarKVs() int {
	n := 0
	for _, list := range [][]kv{s.labels, s.annots} {
		for _, e := range list {
			if e.scalar {
				n += 2
			}
		}
	}
	return n
}

// appendKVs appends the labels then the annotations with a scalar value to
// dst, each span moved by base (but the static ones), and returns dst and
// how many spans the labels took.
func (s *Scanner) appendKVs(dst []span, base uint32) ([]span, int) {
	from, labels := len(dst), 0
	for i, list := range [][]kv{s.labels, s.annots} {
		if i == 1 {
			labels = len(dst) - from
		}
		for _, e := range list {
			if e.scalar {
				dst = append(dst, e.k.at(base), e.v.at(base))
			}
		}
	}
	return dst, labels
}

// at returns the span moved by base, but a static one.
func (sp span) at(base uint32) span {
	if sp.start&static != 0 {
		return sp
	}
	return span{sp.start + base, sp.end + base}
}

// Comment reports whether the last entry scanned ends with a comment line
// after its last content line (or a comment after an indicator that
// announces what comes next): a comment between two items, which yaml.v3
// may attach to either.
func (s *Scanner) Comment() bool { return s.comment }

// kept is what SplitScan keeps of the entries while it reads them, in
// buffers of its Scanner reused from list to list, with no pointers (their
// growth costs no write barriers): at the end, the list gets its items made
// of them (keptItems).
type kept struct {
	items []keptItem
	text  []byte // the items' strings, end to end
	kvs   []span // their labels and annotations, end to end
}

// keptItem is what SplitScan read of an entry: its Item's fields but its
// text (the list's) and its labels and annotations (from and to in the
// list's), and whether it was sure of the entry and the entry ends with a
// comment (Scanner.Comment).
type keptItem struct {
	vals                     [4]span
	from, to                 uint32
	nLabels, nodes           int
	hasLabels, hasAnnotation bool
	sure, comment            bool
}

// entryScanned is what SplitScan read of an entry, in the list.
type entryScanned struct {
	item          Item
	sure, comment bool
}

// keep keeps what the last Scan read of an entry (when it was sure, and
// comment is its Comment); it keeps an unsure entry when its strings would
// take the text past what a span reaches.
func (s *Scanner) keep(sure, comment bool) {
	k := &s.kept
	base := len(k.text)
	if !sure || base+len(s.text) >= static {
		add(&k.items, keptItem{})
		return
	}
	addBytes(&k.text, s.text)
	it := keptItem{hasLabels: s.hasLbl, hasAnnotation: s.hasAnn, nodes: s.nodes, sure: true, comment: comment}
	for i, v := range s.vals {
		it.vals[i] = v.at(uint32(base))
	}
	it.from = uint32(len(k.kvs))
	k.kvs, it.nLabels = s.appendKVs(k.kvs, uint32(base))
	it.to = uint32(len(k.kvs))
	add(&k.items, it)
}

// keptItems returns the items keep kept, their text and their labels and
// annotations copied for them, and forgets them.
func (s *Scanner) keptItems() []entryScanned {
	k := &s.kept
	items := make([]entryScanned, len(k.items))
	text, kvs := string(k.text), slices.Clone(k.kvs)
	for i, r := range k.items {
		if !r.sure {
			continue
		}
		e := &items[i]
		e.sure, e.comment = true, r.comment
		e.item = Item{text: text, vals: r.vals, nLabels: r.nLabels, hasLabels: r.hasLabels, hasAnnotation: r.hasAnnotation, nodes: r.nodes}
		if r.to > r.from {
			e.item.kvs = kvs[r.from:r.to:r.to]
		}
	}
	k.items, k.text, k.kvs = k.items[:0], k.text[:0], k.kvs[:0]
	return items
}

// Scanned reports whether SplitScan made the list: Item tells what the
// scan read of its entries.
func (l *List) Scanned() bool { return l.scanned != nil }

// Item returns what SplitScan's scan read of entry i, nil where it was
// unsure, and what Scanner.Comment reported of it.
func (l *List) Item(i int) (*Item, bool) {
	if e := &l.scanned[i]; e.sure {
		return &e.item, e.comment
	}
	return nil, false
}
