package kptpkg

import (
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
)

// FileAnnotations returns the file an item belongs to and its index in
// that file, from its annotations as kyaml's kioutil.GetFileAnnotations
// reads them (and so kpt): internal.config.kubernetes.io/path, or, when
// the item lacks it, config.kubernetes.io/path (the legacy one); the same
// for the index; "" for none. It is the one reading of them: Items writes
// them, Sink groups items into files by them. The node is read directly
// where it is plain (AnnotationsNode), through kyaml otherwise.
func FileAnnotations(n *yaml.RNode) (path, index string) {
	annos, ok := AnnotationsNode(n)
	if !ok {
		path, index, _ = kioutil.GetFileAnnotations(n)
		return path, index
	}
	if annos == nil {
		return "", ""
	}
	return either(annos, kptfile.AnnotationInternalPath, kptfile.AnnotationPath),
		either(annos, kptfile.AnnotationInternalIndex, kptfile.AnnotationIndex)
}

// either is the value of key in annos, else that of legacy, else ""; the
// first of a key given twice, as kyaml reads them (RNode.Field).
func either(annos *yaml.Node, key, legacy string) string {
	if v := scalarKeyValue(annos, key); v != nil {
		return v.Value
	}
	if v := scalarKeyValue(annos, legacy); v != nil {
		return v.Value
	}
	return ""
}

// AnnotationsNode returns an item's metadata.annotations mapping (nil when
// it has none), read from the node without decoding it; ok is false when
// the item is not plain enough to read so (not a mapping, aliases, an
// annotation that is not a scalar), and the caller should ask kyaml.
func AnnotationsNode(n *yaml.RNode) (annos *yaml.Node, ok bool) {
	m := n.YNode()
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, false
	}
	meta := scalarKeyValue(m, "metadata")
	if meta == nil {
		return nil, true
	}
	if meta.Kind != yaml.MappingNode {
		return nil, false
	}
	annos = scalarKeyValue(meta, "annotations")
	if annos == nil {
		return nil, true
	}
	if annos.Kind != yaml.MappingNode {
		return nil, false
	}
	for i := 0; i+1 < len(annos.Content); i += 2 {
		if annos.Content[i].Kind != yaml.ScalarNode || annos.Content[i+1].Kind != yaml.ScalarNode {
			return nil, false
		}
	}
	return annos, true
}

// scalarKeyValue returns the value of the scalar key in a mapping node, or
// nil.
func scalarKeyValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
