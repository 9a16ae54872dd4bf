// Package decode turns a YAML node into a typed Go value (a functionConfig, a
// resource's spec) and reports every problem at once, each with the field
// path it is about: a value of the wrong type, an unknown field (with a
// "did you mean" hint), a duplicate key. Unlike plain YAML decoding it never
// turns `replicas: 3` into the string "3": Kubernetes would refuse it, so it
// is an error here too.
package decode

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/suggest"
)

// Error is one problem found while decoding, at a field path such as
// `spec.packageContext.data.replicas`.
type Error struct {
	Path string
	Msg  string
}

func (e Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Options tune decoding.
type Options struct {
	// KnownFields makes fields the Go type does not have errors (for our own
	// kinds); without it they are ignored (for kinds owned by others, such as
	// Porch's, which carry status and fields we do not read).
	KnownFields bool
	// Unknown, without KnownFields, collects the fields the Go type does not
	// have instead of ignoring them (for warnings about another owner's
	// kinds: a field their API lacks is dropped by their server).
	Unknown *[]Error
}

// AnyScalar is a string field that takes any scalar (`revision: 3` or
// `revision: "v3"`), for fields whose producers disagree on the type.
type AnyScalar string

var (
	rnodeType  = reflect.TypeFor[*yaml.RNode]()
	nodeType   = reflect.TypeFor[*yaml.Node]()
	scalarType = reflect.TypeFor[AnyScalar]()
)

// maxNodes bounds the work on one input, so that aliases that expand
// exponentially cannot exhaust the machine.
const maxNodes = 1 << 20

// Into decodes n into out (a pointer), naming fields from base ("" for the
// top level). It returns every problem found; fields without problems are set
// even when others have them.
func Into(n *yaml.Node, out any, opts Options, base string) []Error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return []Error{{Path: base, Msg: "internal error: decode target is not a pointer"}}
	}
	d := &decoder{opts: opts}
	d.value(n, v.Elem(), base)
	return d.errs
}

type decoder struct {
	opts  Options
	errs  []Error
	nodes int
}

func (d *decoder) fail(path, format string, args ...any) {
	d.errs = append(d.errs, Error{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) {
	if n == nil {
		return
	}
	if d.nodes++; d.nodes > maxNodes {
		if d.nodes == maxNodes+1 {
			d.fail(path, "too many YAML nodes (more than %d, counting aliases)", maxNodes)
		}
		return
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	switch v.Type() {
	case rnodeType, nodeType:
		if d.duplicates(n, path) {
			return
		}
		if v.Type() == rnodeType {
			v.Set(reflect.ValueOf(yaml.NewRNode(n).Copy()))
		} else {
			v.Set(reflect.ValueOf(yaml.CopyYNode(n)))
		}
		return
	case scalarType:
		if n.Kind != yaml.ScalarNode {
			d.fail(path, "must be a scalar, not %s", describe(n))
		} else if n.Tag != yaml.NodeTagNull {
			v.SetString(strings.Clone(n.Value))
		}
		return
	}
	if isNull(n) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(n, v.Elem(), path)
	case reflect.Struct:
		d.structure(n, v, path)
	case reflect.Map:
		d.mapping(n, v, path)
	case reflect.Slice:
		d.sequence(n, v, path)
	case reflect.Interface:
		if d.duplicates(n, path) {
			return
		}
		var x any
		if err := n.Decode(&x); err != nil {
			d.fail(path, "%v", err)
			return
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		d.scalar(n, v, path)
	}
}

// duplicates reports the keys written twice in the tree at n, a value
// kept as YAML or decoded by yaml.v3, and whether there were any.
func (d *decoder) duplicates(n *yaml.Node, path string) bool {
	dups := Duplicates(n, path)
	for _, dup := range dups {
		d.fail(dup.Path, "%v", dup)
	}
	return len(dups) > 0
}

func (d *decoder) scalar(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.fail(path, "must be %s, not %s", article(v.Kind()), describe(n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		if n.Tag != yaml.NodeTagString {
			d.fail(path, "must be a string, not %s (quote it: %q)", describe(n), n.Value)
			return
		}
		// A copy: the value may be cut from a buffer shared by a whole
		// item's nodes (the scan's builder), which a decoded value held
		// for a run would keep.
		v.SetString(strings.Clone(n.Value))
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if n.Tag != yaml.NodeTagBool || err != nil {
			d.fail(path, "must be a boolean (true or false), not %s", describe(n))
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, v.Type().Bits())
		if n.Tag != yaml.NodeTagInt || err != nil {
			d.fail(path, "must be an integer, not %s", describe(n))
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if (n.Tag != yaml.NodeTagInt && n.Tag != yaml.NodeTagFloat) || err != nil {
			d.fail(path, "must be a number, not %s", describe(n))
			return
		}
		v.SetFloat(f)
	default:
		d.fail(path, "internal error: cannot decode into %s", v.Type())
	}
}

func (d *decoder) structure(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(path, "must be a mapping, not %s", describe(n))
		return
	}
	fields := fieldsOf(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		p := join(path, k)
		if first, ok := seen[k]; ok {
			d.fail(p, "%v", Duplicate{Key: k, Line: n.Content[i].Line, First: first})
			continue
		}
		seen[k] = n.Content[i].Line
		f, ok := fields[k]
		if !ok {
			switch {
			case d.opts.KnownFields:
				d.fail(p, "unknown field %q%s", k, suggest.Hint(k, names(fields)))
			case d.opts.Unknown != nil:
				*d.opts.Unknown = append(*d.opts.Unknown, Error{Path: p, Msg: fmt.Sprintf("unknown field %q%s", k, suggest.Hint(k, names(fields)))})
			}
			continue
		}
		d.value(n.Content[i+1], v.FieldByIndex(f), p)
	}
}

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(path, "must be a mapping, not %s", describe(n))
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := n.Content[i]
		p := join(path, kn.Value)
		if kn.Kind != yaml.ScalarNode {
			d.fail(path, "keys must be strings, not %s", describe(kn))
			continue
		}
		if first, ok := seen[kn.Value]; ok {
			d.fail(p, "%v", Duplicate{Key: kn.Value, Line: kn.Line, First: first})
			continue
		}
		seen[kn.Value] = kn.Line
		e := reflect.New(v.Type().Elem()).Elem()
		d.value(n.Content[i+1], e, p)
		v.SetMapIndex(reflect.ValueOf(strings.Clone(kn.Value)).Convert(v.Type().Key()), e)
	}
}

func (d *decoder) sequence(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(path, "must be a list, not %s", describe(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		d.value(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
	}
	v.Set(s)
}

// fieldCache holds fieldsOf's answer for each struct type met (read only).
var fieldCache sync.Map // reflect.Type → map[string][]int

// fieldsOf maps YAML field names to struct field indexes, following inline
// embedded structs; the map is shared: do not change it.
func fieldsOf(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := readFields(t)
	fieldCache.Store(t, m)
	return m
}

// readFields is fieldsOf, read from the type.
func readFields(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
			for k, idx := range readFields(f.Type) {
				out[k] = append([]int{i}, idx...)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name[:1]) + f.Name[1:]
		}
		out[name] = []int{i}
	}
	return out
}

func names(fields map[string][]int) []string {
	out := make([]string, 0, len(fields))
	for k := range fields {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == yaml.NodeTagNull
}

// describe names a node's type for messages: `the integer 3`, `a list`.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case yaml.NodeTagInt:
			return "the integer " + n.Value
		case yaml.NodeTagFloat:
			return "the number " + n.Value
		case yaml.NodeTagBool:
			return "the boolean " + n.Value
		case yaml.NodeTagNull:
			return "null"
		case yaml.NodeTagString:
			return strconv.Quote(n.Value)
		default:
			return fmt.Sprintf("%s %q", n.Tag, n.Value)
		}
	default:
		return "an unsupported YAML node"
	}
}

func article(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Float64:
		return "a number"
	default:
		return "an integer"
	}
}

// Invalid returns an error in the form of Kubernetes' field.Invalid:
// `<path>: Invalid value: <value as JSON>: <detail>`.
func Invalid(path string, value any, detail string) Error {
	v, err := json.Marshal(value)
	if err != nil {
		v = fmt.Appendf(nil, "%#v", value)
	}
	return Error{Path: path, Msg: fmt.Sprintf("Invalid value: %s: %s", v, detail)}
}
