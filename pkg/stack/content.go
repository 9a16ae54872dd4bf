package stack

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// Content returns a resource's content as the record keeps it: compact
// JSON with keys sorted, scalars by what they mean, without the fields the
// checksum leaves out (bookkeeping annotations, associations). Two
// resources have one checksum exactly when they have one content.
func Content(n *yaml.Node) []byte {
	var w contentWriter
	return w.content(n)
}

// contentWriter writes resources' contents (Content), reusing its buffers.
// With a sink, it hands the content over a stretch at a time and never
// holds more; without, it holds the content whole, up to keep bytes when
// keep is set: a content past that is given up (over), and only its size
// is known.
type contentWriter struct {
	b     []byte
	nodes int
	// keys holds the fields that count of the mappings being written, from
	// the outermost (as canon's).
	keys []int
	sink io.Writer
	keep int
	over bool
	err  error
}

// contentStretch is how much of a content a contentWriter with a sink (or
// one giving a content up) holds at a time.
const contentStretch = 64 << 10

// content returns a resource's content, in a buffer the next call reuses
// (nil when it is over keep).
func (w *contentWriter) content(n *yaml.Node) []byte {
	w.b, w.nodes, w.over = w.b[:0], 0, false
	w.node(n, atRoot, 0)
	if w.over {
		return nil
	}
	return w.b
}

// stream writes a resource's content to the sink, returning the sink's
// first error.
func (w *contentWriter) stream(n *yaml.Node) error {
	w.content(n)
	if w.err == nil && len(w.b) > 0 {
		_, w.err = w.sink.Write(w.b)
	}
	w.b = w.b[:0]
	return w.err
}

// take returns a resource's content in a buffer of its own; nil when it
// is bigContent or more: a record does not hold such a content but streams
// it from the resource when it is encoded (holding it would hold a
// resource's big strings twice more).
func (w *contentWriter) take(n *yaml.Node) []byte {
	w.keep = bigContent
	b := w.content(n)
	if b == nil || len(b) >= bigContent {
		return nil
	}
	return slices.Clone(b)
}

// bigContent is the size from which a content is not held but streamed.
const bigContent = 1 << 20

// spill hands what the buffer holds to the sink once it holds a stretch,
// or gives the content up once it holds more than keep.
func (w *contentWriter) spill() {
	switch {
	case len(w.b) < contentStretch:
		return
	case w.sink != nil:
		if w.err == nil {
			_, w.err = w.sink.Write(w.b)
		}
	case w.keep == 0 || len(w.b) < w.keep:
		return
	default:
		w.over = true
	}
	w.b = w.b[:0]
}

// maxContentDepth bounds the nesting of a content (JSON readers refuse
// deeper values; only aliases can make one).
const maxContentDepth = 1000

func (w *contentWriter) node(n *yaml.Node, at place, depth int) {
	w.spill()
	n = fieldpath.Deref(n)
	if w.nodes++; n == nil || w.nodes > maxCanonNodes || depth > maxContentDepth {
		w.b = append(w.b, "null"...)
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		w.mapping(n, at, depth)
	case yaml.SequenceNode:
		w.b = append(w.b, '[')
		for i, e := range n.Content {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.node(e, elsewhere, depth+1)
		}
		w.b = append(w.b, ']')
	case yaml.ScalarNode:
		w.scalar(n)
	default:
		w.b = append(w.b, "null"...)
	}
}

// mapping writes the fields that count, sorted by key (the last of a
// repeated key wins, as a JSON reader takes it).
func (w *contentWriter) mapping(n *yaml.Node, at place, depth int) {
	start := len(w.keys)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if counts(n.Content[i].Value, n.Content[i+1], at) {
			w.keys = append(w.keys, i)
		}
	}
	end := len(w.keys)
	slices.SortStableFunc(w.keys[start:end], func(a, b int) int { return strings.Compare(n.Content[a].Value, n.Content[b].Value) })
	w.b = append(w.b, '{')
	for k := start; k < end; k++ {
		if k > start {
			w.b = append(w.b, ',')
		}
		i := w.keys[k] // w.keys may move as the values are written
		w.str(n.Content[i].Value)
		w.b = append(w.b, ':')
		w.node(n.Content[i+1], child(n.Content[i].Value, at), depth+1)
	}
	w.b = append(w.b, '}')
	w.keys = w.keys[:start]
}

// str writes s as a JSON string, a stretch at a time (cut where a
// character starts: the same bytes as appendJSONString's).
func (w *contentWriter) str(s string) {
	w.b = append(w.b, '"')
	for len(s) > contentStretch {
		k := contentStretch
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		if k == 0 {
			k = contentStretch
		}
		w.b, s = appendEscaped(w.b, s[:k]), s[k:]
		w.spill()
	}
	w.b = append(appendEscaped(w.b, s), '"')
}

// scalar writes a scalar by what it means: numbers, booleans and null as
// JSON has them, anything else as a string.
func (w *contentWriter) scalar(n *yaml.Node) {
	switch n.ShortTag() {
	case yaml.NodeTagNull:
		w.b = append(w.b, "null"...)
		return
	case yaml.NodeTagBool:
		switch strings.ToLower(n.Value) {
		case "true", "yes", "on", "y":
			w.b = append(w.b, "true"...)
			return
		case "false", "no", "off", "n":
			w.b = append(w.b, "false"...)
			return
		}
	case yaml.NodeTagInt:
		if s := canonInt(n.Value); jsonNumber(s) {
			w.b = append(w.b, s...)
			return
		}
	case yaml.NodeTagFloat:
		if s := canonFloat(n.Value); jsonNumber(s) {
			w.b = append(w.b, s...)
			return
		}
	}
	w.str(n.Value)
}

// jsonNumber reports whether s is a number as JSON writes one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch n := digits(); {
	case n == 0, n > 1 && s[i-n] == '0':
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// appendJSONString appends s as a JSON string (invalid UTF-8 becomes
// U+FFFD; <, > and & are kept as they are).
func appendJSONString(b []byte, s string) []byte {
	return append(appendEscaped(append(b, '"'), s), '"')
}

// appendEscaped appends s escaped as within a JSON string.
func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		safe := i
		for safe < len(s) && s[safe] >= 0x20 && s[safe] < utf8.RuneSelf && s[safe] != '"' && s[safe] != '\\' {
			safe++
		}
		b, i = append(b, s[i:safe]...), safe
		if i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				b = append(b, `\u202`...)
				b = append(b, hex[r&0xf])
			default:
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
		i++
	}
	return b
}

// encodeApplied encodes the record's last-applied contents: a JSON object
// of contents by id, in the record's order, deflated and base64-encoded.
// No resources: nothing. content writes the i-th resource's content to w.
//
// The JSON goes to the compressor a stretch at a time, never whole: the
// deflated bytes do not depend on how their input is cut (FuzzApplied),
// and a 100,000-resource package's contents are some 100 MB. The
// compressed bytes go straight to base64, in blocks the caller joins.
func encodeApplied(resources []v1alpha1.StackResource, content func(i int, w io.Writer) error) (*blocks, error) {
	var out blocks
	if len(resources) == 0 {
		return &out, nil
	}
	b64 := base64.NewEncoder(base64.StdEncoding, &out)
	fw, err := flate.NewWriter(b64, flate.DefaultCompression)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(fw, 64<<10)
	bw.WriteByte('{')
	var id []byte
	for i, r := range resources {
		if i > 0 {
			bw.WriteByte(',')
		}
		id = append(appendJSONString(id[:0], r.ID), ':')
		bw.Write(id)
		if err := content(i, bw); err != nil {
			return nil, err
		}
	}
	bw.WriteByte('}')
	for _, close := range []func() error{bw.Flush, fw.Close, b64.Close} {
		if err := close(); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// blocks collects what is written in blocks of up to a MiB, to be joined
// once: a buffer grown as it is written holds it twice for a while, and
// more in garbage.
type blocks struct {
	list [][]byte
	n    int
}

func (b *blocks) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		last := len(b.list) - 1
		if last < 0 || len(b.list[last]) == cap(b.list[last]) {
			b.list = append(b.list, make([]byte, 0, 4<<10<<min(len(b.list), 8))) // 4 KiB to 1 MiB
			last++
		}
		k := min(len(p), cap(b.list[last])-len(b.list[last]))
		b.list[last], p = append(b.list[last], p[:k]...), p[k:]
	}
	b.n += n
	return n, nil
}

// String joins the blocks.
func (b *blocks) String() string {
	var s strings.Builder
	s.Grow(b.n)
	for _, l := range b.list {
		s.Write(l)
	}
	return s.String()
}

// maxApplied bounds what a record's last-applied contents may inflate to.
const maxApplied = 1 << 30

// decodeApplied reads the record's last-applied contents: by id.
func decodeApplied(s string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if s == "" {
		return out, nil
	}
	z, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), maxApplied+1))
	if err != nil {
		return nil, fmt.Errorf("not deflated data: %w", err)
	}
	if len(raw) > maxApplied {
		return nil, fmt.Errorf("larger than %d bytes inflated", maxApplied)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("not a JSON object of contents by id: %w", err)
	}
	return out, nil
}
