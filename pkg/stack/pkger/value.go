package pkger

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// value reads a YAML mapping the way pkger reads its untyped resources:
// leniently, a field of the wrong type reads as absent (pkger's
// stringShort, intShort, ...). A nil value is an empty mapping.
type value struct{ n *yaml.Node }

func valueOf(n *yaml.Node) value {
	n = fieldpath.Deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return value{}
	}
	return value{n}
}

// get returns the value of a field, or nil.
func (v value) get(key string) *yaml.Node {
	if v.n == nil {
		return nil
	}
	c := v.n.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == key {
			return fieldpath.Deref(c[i+1])
		}
	}
	return nil
}

func (v value) has(key string) bool { return !isNull(v.get(key)) }

func (v value) field(key string) value { return valueOf(v.get(key)) }

// str returns a string or number field as a string, else "".
func (v value) str(key string) string {
	s, _ := scalarString(v.get(key))
	return s
}

// norm returns a string field trimmed and lower-cased (pkger's normStr).
func (v value) norm(key string) string { return strings.TrimSpace(strings.ToLower(v.str(key))) }

// num returns a number field.
func (v value) num(key string) (float64, bool) {
	n := v.get(key)
	if n == nil || n.Kind != yaml.ScalarNode || (n.Tag != yaml.NodeTagInt && n.Tag != yaml.NodeTagFloat) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil {
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		return float64(i), err == nil
	}
	return f, true
}

// list returns the mapping entries of a list field (pkger's slcResource:
// entries that are not mappings are skipped).
func (v value) list(key string) []value {
	n := v.get(key)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []value
	for _, c := range n.Content {
		if e := valueOf(c); e.n != nil {
			out = append(out, e)
		}
	}
	return out
}

// strs returns the string entries of a list field.
func (v value) strs(key string) []string {
	n := v.get(key)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, c := range n.Content {
		if s, ok := scalarString(fieldpath.Deref(c)); ok {
			out = append(out, s)
		}
	}
	return out
}

// size returns the number of entries of a mapping field.
func (v value) size(key string) int {
	n := v.get(key)
	if n == nil || n.Kind != yaml.MappingNode {
		return 0
	}
	return len(n.Content) / 2
}

func scalarString(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	switch n.Tag {
	case yaml.NodeTagString, yaml.NodeTagInt, yaml.NodeTagFloat, "":
		return n.Value, true
	}
	return "", false
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == yaml.NodeTagNull
}

// ref is a field that may hold a value, or pkger's reference to an
// environment value (`envRef: {key, default}`) or a secret (`secretRef: {key}`).
type ref struct {
	env, secret, def string
	val              *yaml.Node
}

func (v value) ref(key string) ref {
	n := v.get(key)
	if isNull(n) {
		return ref{}
	}
	m := valueOf(n)
	r := ref{env: m.field("envRef").str("key"), secret: m.field("secretRef").str("key"), def: m.field("envRef").str("default")}
	if r.env == "" && r.secret == "" {
		r.val = n
	}
	return r
}

// has reports whether the field holds anything (pkger's hasValue).
func (r ref) has() bool { return r.env != "" || r.secret != "" || r.val != nil }

// String returns the value, or an environment reference's default, or
// `env-<key>` (pkger's references.String).
func (r ref) String() string {
	if s, _ := scalarString(r.val); s != "" {
		return s
	}
	if r.env != "" {
		if r.def != "" {
			return r.def
		}
		return "env-" + r.env
	}
	return ""
}
