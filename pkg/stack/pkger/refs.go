package pkger

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// Env holds the values given for environment references, by key
// (ApplyStack.envRefs, pkger's `--env-ref key=value`).
type Env map[string]string

// Ref is a reference an object makes in place of a value: an environment
// reference (`envRef: {key, default}`) or a secret (`secretRef: {key}`).
type Ref struct {
	// Field is where the reference is: metadata.name, spec.associations[0].name.
	Field string
	// Env is the envRef's key; Secret the secretRef's.
	Env, Secret string
	// Default is the envRef's default, and HasDefault whether it has one.
	Default    string
	HasDefault bool
}

// Value returns what an environment reference resolves to, as pkger
// resolves it: the value given in env, else the default, else
// `env-<key>`. An empty value counts as none.
func (r Ref) Value(env Env) string {
	if v := env[r.Env]; v != "" {
		return v
	}
	if r.Default != "" {
		return r.Default
	}
	return "env-" + r.Env
}

// Given reports whether env gives the reference a value (pkger lists the
// keys it does not give in missingEnvRefs, defaults or not).
func (r Ref) Given(env Env) bool {
	_, ok := env[r.Env]
	return ok
}

// Resolved is an object with its environment references resolved.
type Resolved struct {
	// Name is metadata.name, resolved; "" when there is none.
	Name string
	// Node is the object with every environment reference replaced by its
	// value: a copy when it has any, else the object itself. Secrets are
	// never resolved.
	Node *yaml.RNode
	// Refs are the references, in the order they appear.
	Refs []Ref
	// Problems are the references pkger would not read: an envRef without
	// a key, a secretRef where no secret is taken (errors), an envRef in a
	// field pkger reads as a plain value (a warning).
	Problems []Problem
}

// Problem is a reference pkger would not read.
type Problem struct {
	Field, Reason string
	Warning       bool
}

// Resolve finds an object's references (kind is its kind) and resolves the
// environment references in the fields pkger reads them from, with the
// values env gives.
func Resolve(kind string, n *yaml.RNode, env Env) Resolved {
	out := Resolved{Node: n}
	if n == nil {
		return out
	}
	w := refWalker{kind: kind, out: &out}
	w.walk(n.YNode(), "", 0)
	if w.env > 0 {
		out.Node = n.Copy()
		r := refWalker{kind: kind, env: -1, values: env}
		r.walk(out.Node.YNode(), "", 0)
	}
	if name := fieldpath.Field(fieldpath.Deref(out.Node.YNode()), "metadata"); name != nil {
		out.Name, _ = scalarString(fieldpath.Deref(fieldpath.Field(fieldpath.Deref(name), "name")))
	}
	return out
}

// refWalker walks an object for its references. With values set (env < 0)
// it replaces the environment references instead of recording them.
type refWalker struct {
	kind   string
	out    *Resolved
	env    int // environment references found
	values Env
	nodes  int
}

// maxRefNodes bounds the walk (aliases can expand exponentially).
const maxRefNodes = 1 << 20

func (w *refWalker) walk(n *yaml.Node, path string, depth int) {
	if w.nodes++; n == nil || w.nodes > maxRefNodes || depth > 200 {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			w.walk(c, path, depth+1)
		}
	case yaml.SequenceNode:
		for i := range n.Content {
			w.child(n, i, fmt.Sprintf("%s[%d]", path, i), depth)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if path != "" {
				key = path + "." + key
			}
			w.child(n, i+1, key, depth)
		}
	}
}

// child visits the i-th node of parent's content, at path.
func (w *refWalker) child(parent *yaml.Node, i int, path string, depth int) {
	c := parent.Content[i]
	if c.Kind == yaml.AliasNode {
		c = fieldpath.Deref(c)
	}
	if c == nil || c.Kind != yaml.MappingNode || !isRefMapping(c) {
		w.walk(c, path, depth+1)
		return
	}
	ref, problem := readRef(c)
	ref.Field = path
	takesEnv, takesSecret := takesRef(w.kind, path)
	if w.env < 0 { // replacing
		if problem == "" && ref.Env != "" && takesEnv {
			parent.Content[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: ref.Value(w.values)}
		}
		return
	}
	switch {
	case problem != "":
		w.out.Problems = append(w.out.Problems, Problem{Field: path, Reason: problem})
	case ref.Secret != "" && !takesSecret:
		w.out.Problems = append(w.out.Problems, Problem{Field: path, Reason: "secretRef is not taken here: only a notification endpoint's username, password, token and routingKey take a secret"})
	case ref.Env != "" && !takesEnv:
		w.out.Problems = append(w.out.Problems, Problem{Field: path, Warning: true, Reason: "envRef is not resolved here: pkger reads this field as a plain value (" + envFields(w.kind) + " take environment references)"})
	default:
		w.out.Refs = append(w.out.Refs, ref)
		if ref.Env != "" {
			w.env++
		}
	}
}

// isRefMapping reports whether a mapping is a reference: it has an envRef
// or a secretRef.
func isRefMapping(m *yaml.Node) bool {
	return fieldpath.Field(m, "envRef") != nil || fieldpath.Field(m, "secretRef") != nil
}

// readRef reads a reference mapping; problem says what is wrong with it.
func readRef(m *yaml.Node) (r Ref, problem string) {
	var e, s *yaml.Node
	if r.Env, e, problem = refKey(m, "envRef", "{key: name, default: value}"); problem != "" {
		return r, problem
	}
	if d := fieldpath.Deref(fieldpath.Field(e, "default")); e != nil && !isNull(d) {
		r.Default, _ = scalarString(d)
		r.HasDefault = true
	}
	if r.Secret, s, problem = refKey(m, "secretRef", "{key: name}"); problem != "" {
		return r, problem
	}
	if e != nil && s != nil {
		return r, "a field takes an envRef or a secretRef, not both"
	}
	return r, ""
}

// refKey reads a reference's field of m (envRef, secretRef) and its key:
// the field is nil when m has none.
func refKey(m *yaml.Node, field, form string) (key string, ref *yaml.Node, problem string) {
	f := fieldpath.Field(m, field)
	if f == nil {
		return "", nil, ""
	}
	if f = fieldpath.Deref(f); f == nil || f.Kind != yaml.MappingNode {
		return "", f, fmt.Sprintf("%s must be a mapping: %s: %s", field, field, form)
	}
	key, _ = scalarString(fieldpath.Deref(fieldpath.Field(f, "key")))
	if strings.TrimSpace(key) == "" {
		return "", f, fmt.Sprintf("%s has no key: give it one (%s: %s)", field, field, form)
	}
	return key, f, ""
}

// indexes turns a field path into its pattern: spec.selected[2] →
// spec.selected[].
var indexes = regexp.MustCompile(`\[\d+\]`)

// everyKind are the fields every pkger kind reads through its reference type.
var everyKind = []string{"metadata.name", "spec.name", "spec.associations[].name", "spec.association[].name"}

// secretFields are the endpoint fields that take a secret (or an
// environment reference, or a value).
var secretFields = []string{"spec.username", "spec.password", "spec.token", "spec.routingKey"}

// kindFields are the fields some kinds read through their reference type.
var kindFields = map[string][]string{
	KindNotificationEndpointHTTP:      secretFields,
	KindNotificationEndpointPagerDuty: secretFields,
	KindNotificationEndpointSlack:     secretFields,
	KindNotificationRule:              {"spec.endpointName"},
	KindVariable:                      {"spec.selected[]"},
}

// takesRef reports whether a kind's field takes an environment reference,
// and a secret.
func takesRef(kind, path string) (env, secret bool) {
	p := indexes.ReplaceAllString(path, "[]")
	if slices.Contains(everyKind, p) {
		return true, false
	}
	if slices.Contains(kindFields[kind], p) {
		return true, slices.Contains(secretFields, p)
	}
	return false, false
}

// envFields lists the fields of a kind that take environment references,
// for messages.
func envFields(kind string) string {
	fields := append(slices.Clone(everyKind[:3]), kindFields[kind]...)
	return strings.Join(fields, ", ")
}
