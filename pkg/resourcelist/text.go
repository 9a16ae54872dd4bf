package resourcelist

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// Text writes a new item as text, field by field, for a function adding
// thousands of items of one shape (fan-out-variants' PackageVariants): the
// bytes Encoder.Encode writes for the mapping the same calls would build
// (string scalars tagged !!str, as fieldpath.NewString makes them), and the
// header it reads, without building the nodes. Where Encode would not use
// its plain emitter (a string it cannot be sure to write as yaml.v3 does, a
// node with comments) or the header is not one Text follows (apiVersion,
// kind and metadata's name, namespace, labels and annotations written other
// than as strings), OK reports false: build the nodes and Encode them
// instead. FuzzText holds Text to Encode.
//
// Begin starts an item; the item's path annotation is the caller's to
// write. A Text is reused item after item, on one goroutine.
type Text struct {
	b      bytes.Buffer
	e      emit.Emitter
	frames []textFrame // the open collections, the item's mapping first
	hdr    Header
	seen   uint8 // the header's apiVersion, kind, name, namespace written
	ok     bool
}

// textFrame is an open mapping or list.
type textFrame struct {
	key     string // the key it is the value of ("" for a list's entry)
	indent  int    // its keys' column (a mapping), its dashes' (a list)
	list    bool
	pending bool // nothing written yet: its key (or dash) is not either
	inline  bool // its next entry continues the line ("- " written)
	where   where
}

// where is a mapping the header is read from.
type where uint8

const (
	elsewhere where = iota
	atRoot
	atMetadata
	atLabels
	atAnnotations
)

// Begin starts a new item, forgetting the last.
func (t *Text) Begin() {
	t.b.Reset()
	t.e = emit.Quoting(&t.b)
	t.b.WriteString("- ")
	t.frames = append(t.frames[:0], textFrame{indent: 2, inline: true, where: atRoot})
	t.hdr, t.seen = Header{Position: -1}, 0
	t.ok = true
}

// OK reports whether everything written so far is what Encode would write.
func (t *Text) OK() bool { return t.ok }

// String writes key: value in the open mapping.
func (t *Text) String(key, value string) {
	if !t.begun() || t.entry(false) == nil {
		return
	}
	t.scalar(key, true)
	t.b.WriteString(": ")
	t.scalar(value, false)
	t.b.WriteByte('\n')
	t.header(key, value)
}

// Item writes a string entry in the open list.
func (t *Text) Item(value string) {
	if !t.begun() || t.entry(true) == nil {
		return
	}
	t.b.WriteString("- ")
	t.scalar(value, false)
	t.b.WriteByte('\n')
}

// Node writes key and a plain YAML value (aliases expanded, as a copy of n
// would be encoded) in the open mapping. n is not changed.
func (t *Text) Node(key string, n *yaml.Node) {
	if !t.begun() {
		return
	}
	if t.headerKey(key) || !emit.Emittable(n, len(t.frames)) {
		t.ok = false
	}
	if t.entry(false) == nil {
		return
	}
	t.scalar(key, true)
	if !t.e.Value(n, t.top().indent) {
		t.ok = false
	}
}

// Map opens a mapping under key in the open mapping, or, with no key, as
// an entry of the open list; End closes it.
func (t *Text) Map(key string) { t.open(key, false) }

// List opens a list under key in the open mapping; End closes it.
func (t *Text) List(key string) { t.open(key, true) }

func (t *Text) open(key string, list bool) {
	if !t.begun() {
		return
	}
	parent := t.top()
	if parent.list == (key != "") || list && parent.list || len(t.frames) > emit.MaxDepth {
		t.ok = false // a keyed value in a list, a list in a list
	}
	w := elsewhere
	switch {
	case list || parent.list:
		if t.headerKey(key) {
			t.ok = false
		}
	case parent.where == atRoot && key == "metadata":
		w = atMetadata
	case parent.where == atMetadata && key == "labels":
		w, t.hdr.Labels = atLabels, map[string]string{}
	case parent.where == atMetadata && key == "annotations":
		w, t.hdr.Annotations = atAnnotations, map[string]string{}
	case t.headerKey(key):
		t.ok = false
	}
	t.frames = append(t.frames, textFrame{key: key, list: list, pending: true, where: w})
}

// End closes the innermost open mapping or list.
func (t *Text) End() {
	if len(t.frames) < 2 {
		t.ok = false // nothing open but the item
		return
	}
	f := t.frames[len(t.frames)-1]
	if !f.pending {
		t.frames = t.frames[:len(t.frames)-1]
		return
	}
	// Empty: written on one line, as its parent's entry.
	t.frames = t.frames[:len(t.frames)-1]
	if t.entry(f.key == "") == nil {
		return
	}
	if f.key == "" {
		t.b.WriteString("- ")
	} else {
		t.scalar(f.key, true)
		t.b.WriteString(": ")
	}
	if f.list {
		t.b.WriteString("[]\n")
	} else {
		t.b.WriteString("{}\n")
	}
}

// Done returns the item's text and header, once every collection but the
// item's mapping is closed.
func (t *Text) Done() ([]byte, Header, bool) {
	if len(t.frames) == 0 {
		return nil, Header{}, false // no Begin
	}
	if len(t.frames) != 1 || t.frames[0].pending {
		t.ok = false
	}
	if t.frames[0].inline { // an empty item
		t.b.WriteString("{}\n")
	}
	h := t.hdr
	h.place()
	return t.b.Bytes(), h, t.ok
}

func (t *Text) top() *textFrame { return &t.frames[len(t.frames)-1] }

// begun reports whether Begin was called; a Text written without it
// declines.
func (t *Text) begun() bool {
	if len(t.frames) == 0 {
		t.ok = false
		return false
	}
	return true
}

// entry starts an entry of the open collection: a list's (dash) or a
// mapping's (key), opening the collections it is in first. It returns nil
// when the collection is not of that kind.
func (t *Text) entry(list bool) *textFrame {
	for i := range t.frames {
		if t.frames[i].pending {
			t.unpend(i)
		}
	}
	f := t.top()
	if f.list != list || len(t.frames) > emit.MaxDepth {
		t.ok = false
		return nil
	}
	t.lead(f)
	return f
}

// unpend writes the key (or dash) of frames[i], whose parent is written.
func (t *Text) unpend(i int) {
	parent, f := &t.frames[i-1], &t.frames[i]
	t.lead(parent)
	switch {
	case parent.list: // a mapping entry of a list: "- " and its first key
		t.b.WriteString("- ")
		f.indent, f.inline = parent.indent+2, true
	case f.list: // compact: dashes at the key's column
		t.scalar(f.key, true)
		t.b.WriteString(":\n")
		f.indent = parent.indent
	default:
		t.scalar(f.key, true)
		t.b.WriteString(":\n")
		f.indent = parent.indent + 2
	}
	f.pending = false
}

// lead indents an entry of f, unless it continues the line.
func (t *Text) lead(f *textFrame) {
	if f.inline {
		f.inline = false
		return
	}
	t.e.Indent(f.indent)
}

func (t *Text) scalar(v string, key bool) {
	style := yaml.Style(0)
	if scan.Ambiguous(v) {
		style = yaml.DoubleQuotedStyle
	}
	if !t.e.Text(v, yaml.NodeTagString, style, key) {
		t.ok = false
	}
}

// headerKey reports whether key, in the open mapping, is a field the
// header reads.
func (t *Text) headerKey(key string) bool {
	switch t.top().where {
	case atRoot:
		return key == "apiVersion" || key == "kind" || key == "metadata"
	case atMetadata:
		return key == "name" || key == "namespace" || key == "labels" || key == "annotations"
	case atLabels, atAnnotations:
		return true
	}
	return false
}

// header records a string the header reads, as readHeader would. A field
// of the header written twice makes the Text unsure (which one a reader
// keeps is the reader's).
func (t *Text) header(key, value string) {
	switch where := t.top().where; {
	case where == atRoot && key == "apiVersion":
		t.hdr.APIVersion = value
		t.once(0)
	case where == atRoot && key == "kind":
		t.hdr.Kind = value
		t.once(1)
	case where == atMetadata && key == "name":
		t.hdr.Name = value
		t.once(2)
	case where == atMetadata && key == "namespace":
		t.hdr.Namespace = value
		t.once(3)
	case where == atLabels:
		t.ok = t.ok && !hasKey(t.hdr.Labels, key)
		t.hdr.Labels[key] = value
	case where == atAnnotations:
		t.ok = t.ok && !hasKey(t.hdr.Annotations, key)
		t.hdr.Annotations[key] = value
	case t.headerKey(key):
		t.ok = false // metadata, labels or annotations as a string
	}
}

// once marks a header field written; written twice, the Text is unsure.
func (t *Text) once(bit uint) {
	if t.seen&(1<<bit) != 0 {
		t.ok = false
	}
	t.seen |= 1 << bit
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// Text keeps a Text's item, for AddEncoded; false if Text.OK is false.
func (e *Encoder) Text(t *Text) (Encoded, bool) {
	enc, h, ok := t.Done()
	if !ok {
		return Encoded{}, false
	}
	return Encoded{enc: e.keep(enc), hdr: h}, true
}
