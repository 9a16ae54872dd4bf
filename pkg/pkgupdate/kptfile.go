package pkgupdate

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
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
	kptfile.Order(local.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
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
		if !kptapi.IsBookkeeping(m.Content[i].Value) {
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
				if k := have.YNode().Content[i]; kptapi.IsBookkeeping(k.Value) {
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

// setNode sets the field key of the mapping m to v (fieldpath.Set on bare
// nodes).
func setNode(m *yaml.Node, key string, v *yaml.Node) {
	_ = fieldpath.Set(yaml.NewRNode(m), fieldpath.Path{key}, yaml.NewRNode(v))
}
