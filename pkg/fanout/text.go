package fanout

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// writer encodes new children on one goroutine: as text where it can
// (Text), else as the nodes builder.child makes, which the text follows
// field for field.
type writer struct {
	text resourcelist.Text
	enc  resourcelist.Encoder
	b    builder
}

// encode encodes a new child of the set at path.
func (w *writer) encode(s *Set, d *desired, path string, up *yaml.Node) (resourcelist.Encoded, error) {
	w.child(s, d, path, up)
	if e, ok := w.enc.Text(&w.text); ok {
		return e, nil
	}
	defer w.b.reset()
	return w.enc.Encode(yaml.NewRNode(w.b.child(s, d.name, path, w.b.spec(d.spec, up, d.repo, d.pkg))), path)
}

// child writes what builder.child builds.
func (w *writer) child(s *Set, d *desired, path string, up *yaml.Node) {
	t := &w.text
	t.Begin()
	putString(t, "apiVersion", porch.ConfigV1alpha1)
	putString(t, "kind", porch.KindVariant)
	t.Map("metadata")
	putString(t, "name", d.name)
	putString(t, "namespace", s.Metadata.Namespace)
	t.Map("labels")
	t.String(porch.LabelVariantSet, s.Metadata.Name)
	t.End()
	t.Map("annotations")
	t.String(kptfile.AnnotationPath, path)
	t.End()
	t.End()
	t.Map("spec")
	w.spec(d.spec, up, d.repo, d.pkg)
	t.End()
}

// spec writes what builder.spec builds.
func (w *writer) spec(sp *spec, up *yaml.Node, repo, pkg string) {
	t := &w.text
	t.Node("upstream", up)
	t.Map("downstream")
	putString(t, "repo", repo)
	putString(t, "package", pkg)
	t.End()
	putString(t, "adoptionPolicy", sp.adoptionPolicy)
	putString(t, "deletionPolicy", sp.deletionPolicy)
	putMap(t, "labels", sp.labels)
	putMap(t, "annotations", sp.annotations)
	if len(sp.data) > 0 || len(sp.removeKeys) > 0 {
		t.Map("packageContext")
		putMap(t, "data", sp.data)
		if len(sp.removeKeys) > 0 {
			t.List("removeKeys")
			for _, k := range sp.removeKeys {
				t.Item(k)
			}
			t.End()
		}
		t.End()
	}
	if len(sp.mutators) > 0 || len(sp.validators) > 0 {
		t.Map("pipeline")
		putList(t, "mutators", sp.mutators)
		putList(t, "validators", sp.validators)
		t.End()
	}
	if len(sp.injectors) > 0 {
		t.List("injectors")
		for _, inj := range sp.injectors {
			t.Map("")
			for _, f := range []struct {
				key   string
				value *string
			}{{"group", inj.group}, {"version", inj.version}, {"kind", inj.kind}} {
				if f.value != nil {
					t.String(f.key, *f.value)
				}
			}
			t.String("name", inj.name)
			t.End()
		}
		t.End()
	}
}

// putString writes a non-empty string, as builder.putString puts it.
func putString(t *resourcelist.Text, key, value string) {
	if value != "" {
		t.String(key, value)
	}
}

// putMap writes a non-empty map, as builder.putMap puts it.
func putMap(t *resourcelist.Text, key string, value []pair) {
	if len(value) == 0 {
		return
	}
	t.Map(key)
	for _, p := range value {
		t.String(p.key, p.value)
	}
	t.End()
}

// putList writes a non-empty list of nodes, as builder.putList puts it.
func putList(t *resourcelist.Text, key string, items []*yaml.Node) {
	if len(items) > 0 {
		t.Node(key, &yaml.Node{Kind: yaml.SequenceNode, Content: items})
	}
}
