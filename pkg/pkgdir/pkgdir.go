// Package pkgdir turns a kpt package's files into a ResourceList and back, as
// `kpt fn source` and `kpt fn sink` do: the files (paths and bytes) go in, a
// ResourceList whose items carry path and index annotations comes out; and a
// function's output ResourceList goes in, the package's new files come out.
package pkgdir

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// Files are a package's files by slash-separated path relative to its root.
type Files map[string][]byte

// IsResource reports whether kpt reads the file as resources: *.yaml, *.yml
// and Kptfile.
func IsResource(p string) bool {
	base := path.Base(p)
	return base == kptfile.FileName || strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml")
}

// Source returns the package's resources as a ResourceList, every item
// annotated with its file and index, files in path order; extra items (such
// as in-cluster objects) follow, and fnConfig (may be nil) is the
// functionConfig.
func Source(files Files, extra []*yaml.RNode, fnConfig *yaml.RNode) ([]byte, error) {
	var nodes []*yaml.RNode
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !IsResource(p) {
			continue
		}
		r := kio.ByteReader{
			Reader:            bytes.NewReader(files[p]),
			PreserveSeqIndent: true,
			SetAnnotations: map[string]string{
				kptfile.AnnotationPath:         p,
				kptfile.AnnotationInternalPath: p,
			},
		}
		read, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		}
		for i, n := range read {
			if n.GetKind() == "" || n.GetApiVersion() == "" {
				return nil, fmt.Errorf("%s: document %d is not a resource (it needs apiVersion and kind)", p, i)
			}
			if err := n.PipeE(yaml.SetAnnotation(kptfile.AnnotationInternalIndex, strconv.Itoa(i))); err != nil {
				return nil, fmt.Errorf("cannot annotate %s: %w", p, err)
			}
		}
		nodes = append(nodes, read...)
	}
	nodes = append(nodes, extra...)
	var b bytes.Buffer
	w := kio.ByteWriter{
		Writer:                &b,
		KeepReaderAnnotations: true,
		FunctionConfig:        fnConfig,
		WrappingKind:          resourcelist.Kind,
		WrappingAPIVersion:    resourcelist.APIVersion,
	}
	if err := w.Write(nodes); err != nil {
		return nil, fmt.Errorf("cannot write the ResourceList: %w", err)
	}
	return b.Bytes(), nil
}

// Sink returns the package's files after a function ran over in (a
// ResourceList from Source) and wrote out: out's items grouped into files by
// their path annotation, in index order, without the bookkeeping annotations
// (in-cluster items are not package content and are left out). A file whose
// items did not change keeps its original bytes, as encoding would reformat
// it; files that are not resources are kept; a resource file whose items
// are all gone is gone.
func Sink(in, out []byte, original Files) (Files, error) {
	before, err := group(in)
	if err != nil {
		return nil, fmt.Errorf("cannot read the function's input: %w", err)
	}
	after, err := group(out)
	if err != nil {
		return nil, fmt.Errorf("cannot read the function's output: %w", err)
	}
	files := Files{}
	for p, b := range original {
		if !IsResource(p) {
			files[p] = b
		}
	}
	for p, ns := range after {
		if orig, ok := original[p]; ok && sameNodes(before[p], ns) {
			files[p] = orig
			continue
		}
		b, err := encode(ns)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", p, err)
		}
		files[p] = b
	}
	return files, nil
}

// sameNodes reports whether two files' items are the same YAML: kinds,
// tags, values, styles and comments, positions aside.
func sameNodes(a, b []*yaml.RNode) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameNode(a[i].YNode(), b[i].YNode()) {
			return false
		}
	}
	return true
}

func sameNode(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Style != b.Style || a.Anchor != b.Anchor ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		len(a.Content) != len(b.Content) || (a.Alias == nil) != (b.Alias == nil) {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// group reads a ResourceList's package items by file, in index order.
func group(rl []byte) (map[string][]*yaml.RNode, error) {
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(rl), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, err
	}
	byFile := map[string][]*yaml.RNode{}
	for _, n := range nodes {
		if n.GetAnnotations()[v1alpha1.AnnotationInCluster] == "true" {
			continue // an input of the function, not package content
		}
		p, _, err := kioutil.GetFileAnnotations(n)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, fmt.Errorf("%s/%s has no %s annotation: cannot tell which file it belongs to", n.GetKind(), n.GetName(), kptfile.AnnotationPath)
		}
		byFile[p] = append(byFile[p], n)
	}
	for _, ns := range byFile {
		slices.SortStableFunc(ns, func(a, b *yaml.RNode) int { return index(a) - index(b) })
	}
	return byFile, nil
}

func encode(ns []*yaml.RNode) ([]byte, error) {
	var b bytes.Buffer
	w := kio.ByteWriter{Writer: &b, ClearAnnotations: kptfile.BookkeepingAnnotations}
	err := w.Write(ns)
	return b.Bytes(), err
}

func index(n *yaml.RNode) int {
	_, idx, _ := kioutil.GetFileAnnotations(n)
	i, _ := strconv.Atoi(idx)
	return i
}
