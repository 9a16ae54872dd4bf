package stack

import (
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
type contentWriter struct {
	b     []byte
	nodes int
	// keys holds the fields that count of the mappings being written, from
	// the outermost (as canon's).
	keys []int
}

// content returns a resource's content, in a buffer the next call reuses.
func (w *contentWriter) content(n *yaml.Node) []byte {
	w.b, w.nodes = w.b[:0], 0
	w.node(n, atRoot, 0)
	return w.b
}

// maxContentDepth bounds the nesting of a content (JSON readers refuse
// deeper values; only aliases can make one).
const maxContentDepth = 1000

func (w *contentWriter) node(n *yaml.Node, at place, depth int) {
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
		w.b = appendJSONString(w.b, n.Content[i].Value)
		w.b = append(w.b, ':')
		w.node(n.Content[i+1], child(n.Content[i].Value, at), depth+1)
	}
	w.b = append(w.b, '}')
	w.keys = w.keys[:start]
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
	w.b = appendJSONString(w.b, n.Value)
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
	const hex = "0123456789abcdef"
	b = append(b, '"')
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
	return append(b, '"')
}

// encodeApplied encodes the record's last-applied contents: a JSON object
// of contents by id, in the record's order, deflated and base64-encoded.
// No resources: "".
//
// The JSON goes to the compressor a stretch at a time, never whole: the
// deflated bytes do not depend on how their input is cut (FuzzApplied),
// and a 100,000-resource package's contents are some 100 MB.
func encodeApplied(resources []v1alpha1.StackResource, content func(i int) []byte) (string, error) {
	if len(resources) == 0 {
		return "", nil
	}
	var z bytes.Buffer
	fw, err := flate.NewWriter(&z, flate.DefaultCompression)
	if err != nil {
		return "", err
	}
	const stretch = 64 << 10
	raw := make([]byte, 0, 2*stretch)
	raw = append(raw, '{')
	for i, r := range resources {
		if i > 0 {
			raw = append(raw, ',')
		}
		raw = appendJSONString(raw, r.ID)
		raw = append(raw, ':')
		raw = append(raw, content(i)...)
		if len(raw) >= stretch {
			if _, err := fw.Write(raw); err != nil {
				return "", err
			}
			raw = raw[:0]
		}
	}
	raw = append(raw, '}')
	if _, err := fw.Write(raw); err != nil {
		return "", err
	}
	if err := fw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(z.Bytes()), nil
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
