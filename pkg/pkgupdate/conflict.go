package pkgupdate

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge3"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"

	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/result"
)

// Conflict is a field the downstream and the new upstream both changed, each
// differently, since the old upstream: kpt would silently take the
// upstream's value.
type Conflict struct {
	// Ref names the resource (as the downstream names it).
	Ref result.ResourceRef
	// File is the resource's file, relative to the package root.
	File string
	// Field is the field's path: `spec.replicas`, `spec.template.spec.
	// containers[name=app].image`, `metadata.labels["app.kubernetes.io/name"]`.
	Field string
	// Original, Local and Upstream are the field's values in the old
	// upstream, the downstream and the new upstream, as one-line YAML; ""
	// where the field is absent.
	Original, Local, Upstream string
}

// Error says what both sides did, naming the resource, its file and the
// field.
func (c Conflict) Error() string {
	return fmt.Sprintf("%s in %s: %s was changed both here (%s) and upstream (%s), from %s",
		refString(c.Ref), c.File, c.Field, show(c.Local, "deleted"), show(c.Upstream, "deleted"), show(c.Original, "nothing"))
}

func show(v, absent string) string {
	if v == "" {
		return absent
	}
	return v
}

// fieldPath is a field's place in a resource: mapping keys, and list
// elements as `[name=x]` or `[3]`.
type fieldPath []string

func (p fieldPath) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && len(s) > 1:
			b.WriteString(s)
		case strings.ContainsAny(s, ".[]\"") || s == "":
			b.WriteString("[" + strconv.Quote(s) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
	}
	return b.String()
}

func (p fieldPath) child(s string) fieldPath {
	return append(p[:len(p):len(p)], s)
}

// under reports whether p is q or lies below it.
func (p fieldPath) under(q fieldPath) bool {
	if len(p) < len(q) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// recorder is kyaml's merge3 visitor, unchanged in what it merges, that also
// records the fields both sides changed differently. A field is found by the
// nodes of the three versions (indexed before the walk), so the walk itself
// is kyaml's own.
type recorder struct {
	merge3.Visitor
	paths map[*yaml.Node]fieldPath
	skip  func(fieldPath) bool
	found []found
}

type found struct {
	path                      fieldPath
	original, local, upstream string
}

func newRecorder(skip func(fieldPath) bool, roots ...*yaml.RNode) *recorder {
	r := &recorder{paths: map[*yaml.Node]fieldPath{}, skip: skip}
	for _, n := range roots {
		if n != nil {
			r.index(n.YNode(), fieldPath{})
		}
	}
	return r
}

// index records the path of every value node below n.
func (r *recorder) index(n *yaml.Node, at fieldPath) {
	if n == nil || len(r.paths) > maxNodes {
		return
	}
	r.paths[n] = at
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			r.index(n.Content[i+1], at.child(n.Content[i].Value))
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			r.index(e, at.child(element(e, i)))
		}
	}
}

// maxNodes bounds the index of one resource, so that a pathological input
// costs memory in proportion to its size and no more.
const maxNodes = 1 << 20

// element names a list element: by its name when it has one.
func element(e *yaml.Node, i int) string {
	for j := 0; e.Kind == yaml.MappingNode && j+1 < len(e.Content); j += 2 {
		if k, v := e.Content[j], e.Content[j+1]; k.Value == "name" && v.Kind == yaml.ScalarNode {
			if img, ok := strings.CutPrefix(v.Value, syntheticName); ok {
				return "[" + img + "]"
			}
			return "[name=" + v.Value + "]"
		}
	}
	return "[" + strconv.Itoa(i) + "]"
}

func (r *recorder) VisitMap(s walk.Sources, sch *openapi.ResourceSchema) (*yaml.RNode, error) {
	r.check(s, yaml.MappingNode)
	return r.Visitor.VisitMap(s, sch)
}

func (r *recorder) VisitScalar(s walk.Sources, sch *openapi.ResourceSchema) (*yaml.RNode, error) {
	r.check(s, 0)
	return visitScalar(r.Visitor, s, sch)
}

// visitScalar is merge3's VisitScalar, without its cost where its answer is
// plain: when the old and the new upstream values are plain scalars (no
// comments, anchor or explicit tag), merge3's comparison of their YAML texts
// is a comparison of their values, and its answer the new value when they
// differ, the downstream's otherwise. Elsewhere merge3 decides
// (FuzzVisitScalar holds the two to the same answers).
func visitScalar(v merge3.Visitor, s walk.Sources, sch *openapi.ResourceSchema) (*yaml.RNode, error) {
	o, u, d := s.Origin(), s.Updated(), s.Dest()
	if !plainScalar(o) || !plainScalar(u) || d.IsTaggedNull() {
		return v.VisitScalar(s, sch)
	}
	if o.YNode().Value != u.YNode().Value {
		return u, nil
	}
	return d, nil
}

func plainScalar(n *yaml.RNode) bool {
	if yaml.IsMissingOrNull(n) {
		return false
	}
	y := n.YNode()
	return y.Kind == yaml.ScalarNode && y.HeadComment == "" && y.LineComment == "" && y.FootComment == "" &&
		y.Anchor == "" && y.Style&yaml.TaggedStyle == 0 && standardTags[y.ShortTag()]
}

var standardTags = map[string]bool{
	yaml.NodeTagString: true, yaml.NodeTagInt: true, yaml.NodeTagBool: true, yaml.NodeTagFloat: true, "!!timestamp": true,
}

func (r *recorder) VisitList(s walk.Sources, sch *openapi.ResourceSchema, kind walk.ListKind) (*yaml.RNode, error) {
	if kind == walk.AssociativeList {
		r.check(s, yaml.SequenceNode)
	} else {
		r.check(s, 0)
	}
	return r.Visitor.VisitList(s, sch, kind)
}

// check records a conflict at the field the sources stand for when the
// three values differ pairwise, unless the walk goes on into the field
// (container: both sides hold a mapping, or an associative list, whose
// entries are checked one by one).
func (r *recorder) check(s walk.Sources, container yaml.Kind) {
	at, ok := r.pathOf(s)
	if !ok || r.skip(at) {
		return
	}
	for _, f := range r.found {
		if at.under(f.path) {
			return
		}
	}
	o, l, u := node(s.Origin()), node(s.Dest()), node(s.Updated())
	if same(o, l) || same(o, u) || same(l, u) {
		return
	}
	if container != 0 && l != nil && u != nil && l.Kind == container && u.Kind == container {
		return
	}
	r.found = append(r.found, found{path: at, original: render(o), local: render(l), upstream: render(u)})
}

// pathOf finds the field the sources stand for; keys and nodes the merge
// made have none.
func (r *recorder) pathOf(s walk.Sources) (fieldPath, bool) {
	for _, n := range []*yaml.RNode{s.Dest(), s.Origin(), s.Updated()} {
		if n == nil || n.YNode() == nil {
			continue
		}
		if p, ok := r.paths[n.YNode()]; ok {
			return p, true
		}
	}
	return nil, false
}

func node(n *yaml.RNode) *yaml.Node {
	if n == nil {
		return nil
	}
	return n.YNode()
}

// same reports whether two values are the same data: kinds, tags and values
// alike, mapping keys in any order; comments, styles and positions aside.
// Aliases compare by name, so that no input makes the comparison expand them.
func same(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind == yaml.DocumentNode && len(a.Content) == 1 {
		a = a.Content[0]
	}
	if b.Kind == yaml.DocumentNode && len(b.Content) == 1 {
		b = b.Content[0]
	}
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return a.Value == b.Value && a.ShortTag() == b.ShortTag()
	case yaml.AliasNode:
		return a.Value == b.Value
	case yaml.MappingNode:
		for i := 0; i+1 < len(a.Content); i += 2 {
			v := fieldpath.Field(b, a.Content[i].Value)
			if v == nil || !same(a.Content[i+1], v) {
				return false
			}
		}
		return true
	}
	for i := range a.Content {
		if !same(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// render writes a value as one line of YAML, cut short when long.
func render(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	c := yaml.CopyYNode(n)
	flow(c)
	s, err := yaml.String(c)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 240 {
		s = s[:237] + "..."
	}
	return s
}

func flow(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		flow(c)
	}
}
