package pkgupdate

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// merged are the Kptfile fields kpt's update merges; the rest (name,
// namespace, upstream, upstreamLock) stays the downstream's.
var merged = []fieldpath.Path{
	{"metadata", "labels"}, {"metadata", "annotations"}, {"info"}, {"pipeline"}, {"inventory"}, {"status"},
}

// syntheticName prefixes the names kpt gives pipeline functions for the
// merge when none has a name, so that their lists merge by image.
const syntheticName = "_kpt-merge_"

// mergeKptfile merges a package's Kptfile as kpt's update does (three-way,
// lists of named functions by name, of unnamed ones by image or exec) into
// local, in place, and returns the fields both sides changed differently.
func mergeKptfile(local, original, updated *yaml.RNode) ([]found, error) {
	l, o, u := mergeable(local), mergeable(original), mergeable(updated)
	if o.MustString() == u.MustString() {
		return nil, nil
	}
	if nameless(l, o, u) {
		for _, kf := range []*yaml.RNode{l, o, u} {
			eachFunction(kf, nameByImage)
		}
	}
	rec := newRecorder(func(fieldPath) bool { return false }, l, o, u)
	out, err := walk.Walker{
		Visitor: rec, VisitKeysAsScalars: true, InferAssociativeLists: true,
		Sources: []*yaml.RNode{l, o, u},
	}.Walk()
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = yaml.NewMapRNode(nil)
	}
	eachFunction(out, dropSyntheticName)
	transplant(local, out)
	kptpkg.OrderKptfile(local.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
	return rec.found, nil
}

// mergeable returns a copy of the fields of a Kptfile that kpt merges (an
// empty Kptfile for none), without the reader's bookkeeping annotations.
func mergeable(kf *yaml.RNode) *yaml.RNode {
	out := yaml.NewMapRNode(nil)
	if kf == nil {
		return out
	}
	for _, f := range []string{"apiVersion", "kind", "info", "pipeline", "inventory", "status"} {
		if v := fieldpath.Field(kf.YNode(), f); v != nil {
			setNode(out.YNode(), f, yaml.CopyYNode(v))
		}
	}
	for _, p := range merged[:2] {
		if v := fieldpath.Lookup(kf, p); v != nil {
			c := yaml.NewRNode(yaml.CopyYNode(v.YNode()))
			dropBookkeeping(c.YNode())
			if len(c.YNode().Content) > 0 || c.YNode().Kind != yaml.MappingNode {
				_ = fieldpath.Set(out, p, c)
			}
		}
	}
	return out
}

// dropBookkeeping removes the reader's annotations from an annotations
// mapping.
func dropBookkeeping(m *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return
	}
	kept := m.Content[:0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !kptfile.IsBookkeeping(m.Content[i].Value) {
			kept = append(kept, m.Content[i], m.Content[i+1])
		}
	}
	m.Content = kept
}

// transplant puts the merged fields into the local Kptfile: a field the
// merge did not change keeps its nodes (and so its bytes), a field it
// removed goes, the reader's annotations stay.
func transplant(local, out *yaml.RNode) {
	for _, p := range merged {
		want, have := fieldpath.Lookup(out, p), fieldpath.Lookup(local, p)
		annotations := p.String() == "metadata.annotations"
		if annotations && have != nil {
			user := yaml.CopyYNode(have.YNode())
			dropBookkeeping(user)
			if want != nil && kptpkg.SameNode(user, want.YNode()) || want == nil && len(user.Content) == 0 {
				continue
			}
			var keep []*yaml.Node
			for i := 0; i+1 < len(have.YNode().Content); i += 2 {
				if k := have.YNode().Content[i]; kptfile.IsBookkeeping(k.Value) {
					keep = append(keep, k, have.YNode().Content[i+1])
				}
			}
			if want == nil {
				want = yaml.NewMapRNode(nil)
			}
			want.YNode().Content = append(want.YNode().Content, keep...)
			_ = fieldpath.Set(local, p, want)
			continue
		}
		switch {
		case want == nil && have != nil:
			_ = fieldpath.Remove(local, p)
		case want != nil && (have == nil || !kptpkg.SameNode(have.YNode(), want.YNode())):
			_ = fieldpath.Set(local, p, want)
		}
	}
}

// nameless reports whether kpt merges the Kptfiles' functions by image:
// when no function of any of them has a name, and no list holds two
// functions of one image (or exec).
func nameless(kfs ...*yaml.RNode) bool {
	ok := true
	for _, kf := range kfs {
		for _, list := range []string{"mutators", "validators"} {
			seen := map[string]bool{}
			for _, fn := range functions(kf, list) {
				key := functionKey(fn)
				if name, _ := fieldpath.String(yaml.NewRNode(fn), fieldpath.Path{"name"}); name != "" || seen[key] {
					ok = false
				}
				seen[key] = true
			}
		}
	}
	return ok
}

// functionKey is what kpt merges an unnamed function by: its exec, else its
// image without the tag.
func functionKey(fn *yaml.Node) string {
	n := yaml.NewRNode(fn)
	if exec, _ := fieldpath.String(n, fieldpath.Path{"exec"}); exec != "" {
		return exec
	}
	image, _ := fieldpath.String(n, fieldpath.Path{"image"})
	return strings.Split(image, ":")[0]
}

func functions(kf *yaml.RNode, list string) []*yaml.Node {
	l := fieldpath.Lookup(kf, fieldpath.Path{"pipeline", list})
	if l == nil || l.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, fn := range l.YNode().Content {
		if fn.Kind == yaml.MappingNode {
			out = append(out, fn)
		}
	}
	return out
}

func eachFunction(kf *yaml.RNode, f func(*yaml.Node)) {
	for _, list := range []string{"mutators", "validators"} {
		for _, fn := range functions(kf, list) {
			f(fn)
		}
	}
}

func nameByImage(fn *yaml.Node) {
	if fieldpath.Field(fn, "name") == nil {
		setNode(fn, "name", &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: syntheticName + functionKey(fn)})
	}
}

func dropSyntheticName(fn *yaml.Node) {
	if v := fieldpath.Field(fn, "name"); v != nil && strings.HasPrefix(v.Value, syntheticName) {
		_ = fieldpath.Remove(yaml.NewRNode(fn), fieldpath.Path{"name"})
	}
}

// setLineage sets the upstream and upstreamLock of a Kptfile (lock nil:
// none), changing only the values that differ, so that comments survive.
func setLineage(kf *yaml.RNode, up kptfile.Upstream, lock *kptfile.UpstreamLock) error {
	n, err := encode(up)
	if err != nil {
		return err
	}
	assign(kf.YNode(), "upstream", n)
	if lock == nil {
		return fieldpath.Remove(kf, fieldpath.Path{"upstreamLock"})
	}
	if n, err = encode(lock); err != nil {
		return err
	}
	assign(kf.YNode(), "upstreamLock", n)
	return nil
}

// assign makes the field key of the mapping m hold the value v (as kpt's
// writer marshals it): values that differ are replaced, fields v lacks are
// removed, new fields are added (to be placed by kptpkg.OrderKptfile), and
// what does not change keeps its nodes.
func assign(m *yaml.Node, key string, v *yaml.Node) {
	have := fieldpath.Field(m, key)
	switch {
	case have == nil:
		setNode(m, key, v)
	case have.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
		kept := have.Content[:0]
		for i := 0; i+1 < len(have.Content); i += 2 {
			if fieldpath.Field(v, have.Content[i].Value) != nil {
				kept = append(kept, have.Content[i], have.Content[i+1])
			}
		}
		have.Content = kept
		for i := 0; i+1 < len(v.Content); i += 2 {
			assign(have, v.Content[i].Value, v.Content[i+1])
		}
	case have.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode:
		if have.Value != v.Value || have.ShortTag() != v.ShortTag() {
			have.Value, have.Tag, have.Style = v.Value, v.Tag, v.Style
		}
	default:
		setNode(m, key, v)
	}
}

// setNode sets the field key of the mapping m to v (fieldpath.Set on bare
// nodes).
func setNode(m *yaml.Node, key string, v *yaml.Node) {
	_ = fieldpath.Set(yaml.NewRNode(m), fieldpath.Path{key}, yaml.NewRNode(v))
}
