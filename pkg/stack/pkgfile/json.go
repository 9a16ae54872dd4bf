package pkgfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// EncodeJSON writes resources as one JSON package file: an array of
// objects, fields in their order, 2-space indented (pkger's JSON form).
func EncodeJSON(nodes []*yaml.RNode) ([]byte, error) {
	var list bytes.Buffer
	list.WriteByte('[')
	for i, n := range nodes {
		b, err := NodeJSON(n.YNode())
		if err != nil {
			return nil, fmt.Errorf("cannot encode resource %d as JSON: %w", i, err)
		}
		if i > 0 {
			list.WriteByte(',')
		}
		list.Write(b)
	}
	list.WriteByte(']')
	return Indent(list.Bytes())
}

// Indent indents compact JSON by two spaces and ends it with a new line.
func Indent(compact []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("cannot encode JSON: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// quote encodes a JSON string as written, without escaping <, > and &.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// maxJSONNodes bounds the work on one value, so that aliases that expand
// exponentially cannot exhaust the machine.
const maxJSONNodes = 1 << 20

// NodeJSON returns a YAML value as compact JSON, mapping keys in their order.
// Scalars are typed by what YAML reads them as: `3` is a number, `"3"` a
// string, `0x10` the number 16.
func NodeJSON(n *yaml.Node) ([]byte, error) {
	w := jsonWriter{}
	if err := w.value(n, 0); err != nil {
		return nil, err
	}
	return w.b.Bytes(), nil
}

type jsonWriter struct {
	b     bytes.Buffer
	nodes int
}

func (w *jsonWriter) value(n *yaml.Node, depth int) error {
	if w.nodes++; w.nodes > maxJSONNodes || depth > 1000 {
		return fmt.Errorf("the value is too large (more than %d nodes, counting aliases, or nested too deep)", maxJSONNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("a document holds %d values", len(n.Content))
		}
		return w.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return fmt.Errorf("an alias to nothing")
		}
		return w.value(n.Alias, depth+1)
	case yaml.MappingNode:
		return w.object(n, depth)
	case yaml.SequenceNode:
		w.b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				w.b.WriteByte(',')
			}
			if err := w.value(c, depth+1); err != nil {
				return err
			}
		}
		w.b.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		w.b.Write(scalarJSON(n))
		return nil
	}
	return fmt.Errorf("unsupported YAML node")
}

func (w *jsonWriter) object(n *yaml.Node, depth int) error {
	w.b.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i > 0 {
			w.b.WriteByte(',')
		}
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("a mapping key is not a string")
		}
		w.b.Write(quote(k.Value))
		w.b.WriteByte(':')
		if err := w.value(n.Content[i+1], depth+1); err != nil {
			return err
		}
	}
	w.b.WriteByte('}')
	return nil
}

// scalarJSON encodes a scalar by its YAML type.
func scalarJSON(n *yaml.Node) []byte {
	switch n.ShortTag() {
	case yaml.NodeTagNull:
		return []byte("null")
	case yaml.NodeTagBool:
		if b, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			return []byte(strconv.FormatBool(b))
		}
	case yaml.NodeTagInt:
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return []byte(strconv.FormatInt(i, 10))
		}
	case yaml.NodeTagFloat:
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return []byte(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return quote(n.Value)
}
