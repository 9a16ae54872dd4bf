package kptpkg

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// Sink returns the package's files after functions changed its items (read
// from original with Resources("", true) as before): the items grouped into
// files by their path annotation, in index order, written as kpt writes them
// without the bookkeeping annotations. In-cluster items are inputs, not
// package content, and are left out. A file whose items are the same YAML as
// before keeps its bytes; files kpt does not read as resources (other files,
// and those .krmignore names) are kept, and so are resource files that held
// no items (empty, or only comments); a resource file whose items are all
// gone is gone. An item whose path is missing or leaves the package is an
// error.
func Sink(items, before []*yaml.RNode, original Files) (Files, error) {
	return sink(items, before, original, false)
}

// SinkAll is Sink keeping in-cluster items too: `kpt fn render` writes
// every item back to its file.
func SinkAll(items, before []*yaml.RNode, original Files) (Files, error) {
	return sink(items, before, original, true)
}

func sink(items, before []*yaml.RNode, original Files, inCluster bool) (Files, error) {
	after, err := group(items, inCluster)
	if err != nil {
		return nil, err
	}
	was, err := group(before, inCluster)
	if err != nil {
		return nil, fmt.Errorf("the items read before: %w", err)
	}
	ig := original.ignorer()
	files := Files{}
	for p, b := range original {
		if !IsResource(p) || ig.ignored(p) || (len(was[p]) == 0 && len(after[p]) == 0) {
			files[p] = b
		}
	}
	// Files are compared and written on every core: encoding is most of
	// the cost.
	paths := slices.Sorted(maps.Keys(after))
	data, errs := make([][]byte, len(paths)), make([]error, len(paths))
	parallel.Do(len(paths), parallel.Workers(len(paths), 1), func(_, i int) {
		p, ns := paths[i], after[paths[i]]
		if orig, ok := original[p]; ok && sameNodes(was[p], ns) {
			data[i] = orig
			return
		}
		if data[i], errs[i] = Encode(ns); errs[i] != nil {
			errs[i] = fmt.Errorf("cannot write %s: %w", p, errs[i])
		}
	})
	for i, p := range paths {
		if errs[i] != nil {
			return nil, errs[i]
		}
		files[p] = data[i]
	}
	return files, nil
}

// group sorts a package's items into files, each in index order
// (in-cluster items left out unless inCluster).
func group(items []*yaml.RNode, inCluster bool) (map[string][]*yaml.RNode, error) {
	type placed struct {
		n     *yaml.RNode
		index int
	}
	byFile := map[string][]placed{}
	for _, n := range items {
		if !inCluster && annotations(n.YNode())[v1alpha1.AnnotationInCluster] == "true" {
			continue
		}
		p, idx := FileAnnotations(n)
		if p == "" {
			return nil, fmt.Errorf("%s/%s has no %s annotation: cannot tell which file it belongs to", n.GetKind(), n.GetName(), kptfile.AnnotationPath)
		}
		if err := CheckPath("file", p); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", n.GetKind(), n.GetName(), err)
		}
		i, _ := strconv.Atoi(idx)
		byFile[p] = append(byFile[p], placed{n, i})
	}
	out := make(map[string][]*yaml.RNode, len(byFile))
	for p, ns := range byFile {
		slices.SortStableFunc(ns, func(a, b placed) int { return a.index - b.index })
		sorted := make([]*yaml.RNode, len(ns))
		for i, x := range ns {
			sorted[i] = x.n
		}
		out[p] = sorted
	}
	return out, nil
}

// annotations reads an item's annotations that are plain scalars, without
// kyaml's metadata decoding (this runs for every item a package writes).
func annotations(n *yaml.Node) map[string]string {
	a := fieldpath.Field(fieldpath.Field(n, "metadata"), "annotations")
	if a == nil || a.Kind != yaml.MappingNode {
		return nil
	}
	out := make(map[string]string, len(a.Content)/2)
	for i := 0; i+1 < len(a.Content); i += 2 {
		if v := a.Content[i+1]; v.Kind == yaml.ScalarNode {
			out[a.Content[i].Value] = v.Value
		}
	}
	return out
}

// Encode writes one file's items as kpt writes a package file: documents
// separated by ---, each with the sequence indentation it was read with,
// without the bookkeeping annotations.
func Encode(items []*yaml.RNode) ([]byte, error) {
	if b, ok := emitFile(items); ok {
		return b, nil
	}
	var b bytes.Buffer
	w := kio.ByteWriter{Writer: &b, ClearAnnotations: kptfile.BookkeepingAnnotations}
	err := w.Write(items)
	return b.Bytes(), err
}

// clearedAnnotations are the annotations kio.ByteWriter clears from what it
// writes, as Encode asks it to.
var clearedAnnotations = append([]string{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, kioutil.SeqIndentAnnotation}, //nolint:staticcheck // the ByteWriter clears both
	kptfile.BookkeepingAnnotations...)

// emitFile is Encode's ByteWriter for the items pkg/resourcelist's emitter
// writes (yaml.v3's bytes, for a fraction of the cost): each item copied
// and its annotations cleared as the ByteWriter clears them, written with
// compact sequences, "---" between documents. It declines (false) when one
// item is not for the emitter, asks for wide sequences or wraps a bare
// list, or for a single item of a JSON file.
func emitFile(items []*yaml.RNode) ([]byte, bool) {
	if len(items) == 1 {
		if p, _ := FileAnnotations(items[0]); p != "" {
			for _, glob := range kio.JSONMatch {
				if ok, _ := path.Match(glob, path.Base(p)); ok {
					return nil, false
				}
			}
		}
	}
	var b bytes.Buffer
	for i, item := range items {
		if item.GetAnnotations(kioutil.SeqIndentAnnotation)[kioutil.SeqIndentAnnotation] == string(yaml.WideSequenceStyle) {
			return nil, false
		}
		n := item
		if !nothingToClear(item.YNode()) {
			n = spineCopy(item)
			for _, a := range clearedAnnotations {
				if _, err := n.Pipe(yaml.ClearAnnotation(a)); err != nil {
					return nil, false
				}
			}
			if yaml.ClearEmptyAnnotations(n) != nil {
				return nil, false
			}
		}
		if n.Field(yaml.BareSeqNodeWrappingKey) != nil {
			return nil, false
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		root := n.Document()
		if root.Kind == yaml.DocumentNode {
			if len(root.Content) != 1 || root.HeadComment != "" || root.LineComment != "" || root.FootComment != "" {
				return nil, false // the document's own comments
			}
			root = root.Content[0]
		}
		if !resourcelist.Emit(&b, root) {
			return nil, false
		}
	}
	return b.Bytes(), true
}

// nothingToClear reports whether clearing the ByteWriter's annotations and
// the empty annotations and metadata would leave the item as it is: a
// mapping whose metadata, if any, is one non-empty mapping, whose
// annotations, if any, are one non-empty mapping holding none of them.
// Most items are so, and are written without a copy.
// spineCopy returns a copy of the item deep enough to clear its
// annotations without changing it: its document and mapping nodes, its
// metadata mappings and their annotations mappings are new (their content
// lists too); every other node is the item's own, shared, for the emitter
// only reads them. Copying the whole item was about 3% of a fleet's CPU.
func spineCopy(item *yaml.RNode) *yaml.RNode {
	doc := shallowCopy(item.Document())
	root := doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = shallowCopy(doc.Content[0])
		doc.Content[0] = root
	}
	if root.Kind != yaml.MappingNode {
		return item.Copy()
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != yaml.MetadataField || root.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		md := shallowCopy(root.Content[i+1])
		root.Content[i+1] = md
		for j := 0; j+1 < len(md.Content); j += 2 {
			if md.Content[j].Value == yaml.AnnotationsField {
				md.Content[j+1] = shallowCopy(md.Content[j+1])
			}
		}
	}
	return yaml.NewRNode(doc)
}

// shallowCopy copies a node and its content list, not its children.
func shallowCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = slices.Clone(n.Content)
	return &c
}

func nothingToClear(root *yaml.Node) bool {
	if root.Kind != yaml.MappingNode {
		return false
	}
	md, ok := onlyField(root, yaml.MetadataField)
	if !ok || md == nil {
		return ok
	}
	if md.Kind != yaml.MappingNode || len(md.Content) == 0 {
		return false
	}
	ann, ok := onlyField(md, yaml.AnnotationsField)
	if !ok || ann == nil {
		return ok
	}
	if ann.Kind != yaml.MappingNode || len(ann.Content) == 0 {
		return false
	}
	for i := 0; i+1 < len(ann.Content); i += 2 {
		if slices.Contains(clearedAnnotations, ann.Content[i].Value) {
			return false
		}
	}
	return true
}

// onlyField returns the value of a mapping's key (nil when absent); false
// when the key is written more than once.
func onlyField(m *yaml.Node, key string) (*yaml.Node, bool) {
	var v *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if v != nil {
				return nil, false
			}
			v = m.Content[i+1]
		}
	}
	return v, true
}

// sameNodes reports whether two files' items are the same YAML: kinds,
// tags, values, styles and comments, positions aside.
func sameNodes(a, b []*yaml.RNode) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !SameNode(a[i].YNode(), b[i].YNode()) {
			return false
		}
	}
	return true
}

// SameNode reports whether two YAML trees are the same: kinds, tags, values,
// styles, anchors and comments, positions aside.
func SameNode(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Style != b.Style || a.Anchor != b.Anchor ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		len(a.Content) != len(b.Content) || (a.Alias == nil) != (b.Alias == nil) {
		return false
	}
	for i := range a.Content {
		if !SameNode(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}
