package render

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// mapValue returns the value of key in a mapping node, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// annotation reads one annotation of an item; ok is false when it cannot
// be read directly (see kptpkg.AnnotationsNode).
func annotation(n *yaml.RNode, key string) (value string, found, ok bool) {
	annos, ok := kptpkg.AnnotationsNode(n)
	if !ok || annos == nil {
		return "", false, ok
	}
	if v := mapValue(annos, key); v != nil {
		return v.Value, true, true
	}
	return "", false, true
}

// setAnnotation sets an annotation as kyaml does, unless it already holds
// that string (kyaml would rewrite it alike).
func setAnnotation(n *yaml.RNode, key, value string) error {
	if annos, ok := kptpkg.AnnotationsNode(n); ok && annos != nil {
		if v := mapValue(annos, key); v != nil && v.Value == value && v.Tag == yaml.NodeTagString &&
			v.HeadComment == "" && v.LineComment == "" && v.FootComment == "" {
			return nil
		}
	}
	if setAnnotationFast(n, key, value) {
		return nil
	}
	return n.PipeE(yaml.SetAnnotation(key, value))
}

// settledPaths reports whether kyaml's DefaultPathAnnotation would leave
// the item as it is: it has its path, and each pair of annotations kyaml
// keeps twice (path, index, id) is both there or both absent.
func settledPaths(n *yaml.RNode) bool {
	annos, ok := kptpkg.AnnotationsNode(n)
	if !ok || annos == nil {
		return false
	}
	has := func(k string) bool {
		v := mapValue(annos, k)
		return v != nil && v.Value != ""
	}
	for _, pair := range [][2]string{
		{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation},   //nolint:staticcheck // kpt keeps both
		{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation}, //nolint:staticcheck // kpt keeps both
		{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation},       //nolint:staticcheck // kpt keeps both
	} {
		if has(pair[0]) != has(pair[1]) {
			return false
		}
	}
	return mapValue(annos, kioutil.PathAnnotation) != nil
}

// defaultPaths gives items without a path one in dir, as kyaml's
// DefaultPathAnnotation does, asking kyaml only about items it would change.
func defaultPaths(dir string, items []*yaml.RNode) error {
	var todo []*yaml.RNode
	for _, n := range items {
		if !settledPaths(n) {
			todo = append(todo, n)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return kioutil.DefaultPathAnnotation(dir, todo)
}

// snapshot copies a node tree, as yaml.CopyYNode does, into one slab of
// nodes (a step copies every item it runs on).
func snapshot(n *yaml.Node) *yaml.Node {
	nodes, links := 0, 0
	var count func(*yaml.Node)
	count = func(n *yaml.Node) {
		nodes++
		links += len(n.Content)
		for _, c := range n.Content {
			count(c)
		}
	}
	count(n)
	slab := make([]yaml.Node, 0, nodes)
	ptrs := make([]*yaml.Node, 0, links)
	var cp func(*yaml.Node) *yaml.Node
	cp = func(n *yaml.Node) *yaml.Node {
		slab = append(slab, *n)
		c := &slab[len(slab)-1]
		if len(n.Content) > 0 {
			start := len(ptrs)
			ptrs = ptrs[:start+len(n.Content)]
			c.Content = ptrs[start : start+len(n.Content) : start+len(n.Content)]
			for i, child := range n.Content {
				c.Content[i] = cp(child)
			}
		}
		return c
	}
	return cp(n)
}

// setAnnotationFast sets an annotation the item lacks as kyaml's
// SetAnnotation would (a key node, a single-quoted string), directly on
// the node: only when the item has a non-empty, plain annotations mapping
// without the key; otherwise it reports false and changes nothing.
func setAnnotationFast(n *yaml.RNode, key, value string) bool {
	annos, ok := kptpkg.AnnotationsNode(n)
	if !ok || annos == nil || len(annos.Content) == 0 || mapValue(annos, key) != nil || strings.Contains(value, "\n") {
		return false
	}
	annos.Content = append(annos.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: value, Style: yaml.SingleQuotedStyle})
	return true
}

// clearAnnotation removes an annotation as kyaml's ClearAnnotation does
// (the first key of that name; the mapping stays, even empty).
func clearAnnotation(n *yaml.RNode, key string) error {
	annos, ok := kptpkg.AnnotationsNode(n)
	if !ok {
		return n.PipeE(yaml.ClearAnnotation(key))
	}
	if annos == nil {
		return nil
	}
	for i := 0; i+1 < len(annos.Content); i += 2 {
		if annos.Content[i].Value == key {
			annos.Content = append(annos.Content[:i], annos.Content[i+2:]...)
			return nil
		}
	}
	return nil
}

// filePath is an item's path annotation as kpt reads it
// (kptpkg.FileAnnotations).
func filePath(n *yaml.RNode) string {
	p, _ := kptpkg.FileAnnotations(n)
	return p
}
