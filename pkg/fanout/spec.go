package fanout

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
)

// spec is a rendered PackageVariant spec, less its upstream and downstream.
type spec struct {
	adoptionPolicy, deletionPolicy string
	labels, annotations, data      []pair
	removeKeys                     []string
	injectors                      []injector
	mutators, validators           []*yaml.Node
}

// pair is an entry of a rendered map; a rendered map is its pairs, sorted
// by key.
type pair struct{ key, value string }

type injector struct {
	group, version, kind *string
	name                 string
}

// spec builds the spec as YAML, fields in Porch's order (upstream,
// downstream, adoptionPolicy, deletionPolicy, labels, annotations,
// packageContext, pipeline, injectors), maps sorted by key, empty fields left out.
func (b *builder) spec(sp *spec, upstream *yaml.Node, repo, pkg string) *yaml.Node {
	m := b.mapping()
	b.put(m, "upstream", b.copy(upstream))
	down := b.mapping()
	b.putString(down, "repo", repo)
	b.putString(down, "package", pkg)
	b.put(m, "downstream", down)
	b.putString(m, "adoptionPolicy", sp.adoptionPolicy)
	b.putString(m, "deletionPolicy", sp.deletionPolicy)
	b.putMap(m, "labels", sp.labels)
	b.putMap(m, "annotations", sp.annotations)
	if len(sp.data) > 0 || len(sp.removeKeys) > 0 {
		pc := b.mapping()
		b.putMap(pc, "data", sp.data)
		if len(sp.removeKeys) > 0 {
			list := b.node(yaml.SequenceNode, "", "")
			for _, k := range sp.removeKeys {
				list.Content = append(list.Content, b.str(k))
			}
			b.put(pc, "removeKeys", list)
		}
		b.put(m, "packageContext", pc)
	}
	if len(sp.mutators) > 0 || len(sp.validators) > 0 {
		pl := b.mapping()
		b.putList(pl, "mutators", sp.mutators)
		b.putList(pl, "validators", sp.validators)
		b.put(m, "pipeline", pl)
	}
	if len(sp.injectors) > 0 {
		list := b.node(yaml.SequenceNode, "", "")
		for _, inj := range sp.injectors {
			list.Content = append(list.Content, b.injector(inj))
		}
		b.put(m, "injectors", list)
	}
	return m
}

func (b *builder) injector(inj injector) *yaml.Node {
	m := b.mapping()
	for _, f := range []struct {
		key   string
		value *string
	}{{"group", inj.group}, {"version", inj.version}, {"kind", inj.kind}} {
		if f.value != nil {
			b.put(m, f.key, b.str(*f.value))
		}
	}
	b.put(m, "name", b.str(inj.name))
	return m
}

// upstream is the children's spec.upstream: the set's, field by field in
// Porch's order, the revision scalar as written (a number or a string).
func (b *builder) upstream(s *Set) *yaml.Node {
	up := s.Spec.Upstream
	m := b.mapping()
	b.putString(m, "repo", up.Repo)
	b.putString(m, "package", up.Package)
	if rev := field(s.UpstreamNode, "revision"); rev != nil && up.Revision != "" {
		// A string loses its quotes here; the writer quotes it again when
		// YAML would read it as something else ("2").
		b.put(m, "revision", b.node(yaml.ScalarNode, rev.ShortTag(), rev.Value))
	}
	b.putString(m, "workspaceName", up.WorkspaceName)
	return m
}

// child builds a new PackageVariant of the set.
func (b *builder) child(s *Set, name, path string, sp *yaml.Node) *yaml.Node {
	md := b.mapping()
	b.putString(md, "name", name)
	b.putString(md, "namespace", s.Metadata.Namespace)
	labels, annotations := b.mapping(), b.mapping()
	b.put(labels, porch.LabelVariantSet, b.str(s.Metadata.Name))
	b.put(annotations, kptfile.AnnotationPath, b.str(path))
	b.put(md, "labels", labels)
	b.put(md, "annotations", annotations)
	m := b.mapping()
	b.putString(m, "apiVersion", porch.ConfigV1alpha1)
	b.putString(m, "kind", porch.KindVariant)
	b.put(m, "metadata", md)
	b.put(m, "spec", sp)
	return m
}

// function is a template's pipeline entry made a Kptfile function: a copy
// without configMapExprs, with configMap set to cm (or removed).
func (b *builder) function(tmpl *yaml.Node, cm []pair) *yaml.Node {
	n := b.node(tmpl.Kind, tmpl.Tag, tmpl.Value)
	placed := false
	for i := 0; i+1 < len(tmpl.Content); i += 2 {
		switch key := tmpl.Content[i].Value; key {
		case "configMapExprs":
		case "configMap":
			if len(cm) > 0 {
				b.putMap(n, key, cm)
				placed = true
			}
		default:
			n.Content = append(n.Content, b.copy(tmpl.Content[i]), b.copy(tmpl.Content[i+1]))
		}
	}
	if !placed {
		b.putMap(n, "configMap", cm)
	}
	return n
}

// copy copies a plain node tree (see plain) out of the slabs.
func (b *builder) copy(n *yaml.Node) *yaml.Node {
	out := b.node(n.Kind, n.Tag, n.Value)
	out.Style = n.Style
	if len(n.Content) > 0 {
		out.Content = make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			out.Content[i] = b.copy(c)
		}
	}
	return out
}

// builder makes the YAML nodes of children. It hands them out of slabs: a
// fleet's children are tens of thousands of nodes each, allocated together.
// A builder whose nodes nothing refers to any more (the children it built
// were added encoded, as text) is reset and hands the same nodes out again.
type builder struct {
	slabs     [][]yaml.Node
	cur, next int // the next node handed out is slabs[cur][next]
}

const slabSize = 1024

func (b *builder) node(kind yaml.Kind, tag, value string) *yaml.Node {
	if len(b.slabs) == 0 || b.next == slabSize {
		if len(b.slabs) > 0 {
			b.cur++
		}
		b.next = 0
		if b.cur == len(b.slabs) {
			b.slabs = append(b.slabs, make([]yaml.Node, slabSize))
		}
	}
	n := &b.slabs[b.cur][b.next]
	b.next++
	*n = yaml.Node{Kind: kind, Tag: tag, Value: value}
	return n
}

// reset takes back every node handed out: call it only when nothing refers
// to them any more.
func (b *builder) reset() { b.cur, b.next = 0, 0 }

func (b *builder) mapping() *yaml.Node { return b.node(yaml.MappingNode, "", "") }

// str is a string scalar, tagged so that the writer quotes it where YAML
// would read it as another type (as fieldpath.NewString does).
func (b *builder) str(s string) *yaml.Node { return b.node(yaml.ScalarNode, yaml.NodeTagString, s) }

func (b *builder) put(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, b.str(key), v)
}

// putString puts a non-empty string.
func (b *builder) putString(m *yaml.Node, key, value string) {
	if value != "" {
		b.put(m, key, b.str(value))
	}
}

// putMap puts a non-empty string map.
func (b *builder) putMap(m *yaml.Node, key string, value []pair) {
	if len(value) > 0 {
		b.put(m, key, b.stringMap(value))
	}
}

func (b *builder) putList(m *yaml.Node, key string, items []*yaml.Node) {
	if len(items) > 0 {
		seq := b.node(yaml.SequenceNode, "", "")
		seq.Content = items
		b.put(m, key, seq)
	}
}

func (b *builder) stringMap(value []pair) *yaml.Node {
	n := b.mapping()
	n.Content = make([]*yaml.Node, 0, 2*len(value))
	for _, p := range value {
		n.Content = append(n.Content, b.str(p.key), b.str(p.value))
	}
	return n
}
