package kptpkg

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// Resources reads the items of the package at dir ("" for the root) as kpt
// reads a package: every document of its resource files that .krmignore does
// not leave out, files in path order, each item annotated with its path
// (relative to dir), its index in the file and its sequence indentation.
// With deep, the subpackages' files are read too; without, they are not
// (as `kpt fn render` reads one package of a tree).
func (f Files) Resources(dir string, deep bool) ([]*yaml.RNode, error) {
	return f.Layout().Resources(dir, deep)
}

// Resources reads the items of the package at dir, as Files.Resources.
func (l *Layout) Resources(dir string, deep bool) ([]*yaml.RNode, error) {
	paths := l.ResourcePaths(dir, deep)
	f := l.files
	read := make([][]*yaml.RNode, len(paths))
	errs := make([]error, len(paths))
	// A big package is parsed on every core (YAML parsing is most of a
	// read); the items keep the files' order.
	parallel.Do(len(paths), parallel.Workers(len(paths), parallelFiles), func(_, i int) {
		rel, _ := relative(paths[i], dir)
		read[i], errs[i] = Items(rel, f[paths[i]])
	})
	var nodes []*yaml.RNode
	for i := range paths {
		if errs[i] != nil {
			return nil, errs[i]
		}
		nodes = append(nodes, read[i]...)
	}
	return nodes, nil
}

// parallelFiles is how many files a package needs per core for Resources
// to parse them on several.
const parallelFiles = 8

// ResourcePaths returns the paths (relative to the tree's root, in kpt's
// order) of the files Resources reads for the package at dir: its resource
// files that .krmignore does not leave out, and with deep its subpackages'.
// Each call looks at every file: ask a Layout many questions.
func (f Files) ResourcePaths(dir string, deep bool) []string {
	return f.Layout().ResourcePaths(dir, deep)
}

// ResourcePaths returns the paths of the files Resources reads for the
// package at dir, as Files.ResourcePaths: only the files below dir are
// looked at (with deep), or the package's own (without).
func (l *Layout) ResourcePaths(dir string, deep bool) []string {
	if !deep {
		return slices.Clone(l.own[dir])
	}
	var out []string
	for _, p := range l.below(dir) {
		if IsResource(p) && !l.ignored[p] {
			out = append(out, p)
		}
	}
	return out
}

// Items reads the documents of one resource file, annotated with the path
// given and their index, as kpt's package reader does; unlike kpt, it
// refuses a key written twice in a mapping (DuplicateKeys).
func Items(p string, data []byte) ([]*yaml.RNode, error) {
	r := kio.ByteReader{
		PreserveSeqIndent: true,
		WrapBareSeqNode:   true,
		DisableUnwrapping: true,
		SetAnnotations: map[string]string{
			kptfile.AnnotationPath:         p,
			kptfile.AnnotationInternalPath: p,
		},
	}
	read, err := ReadDocuments(&r, data)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", p, err)
	}
	for i, n := range read {
		if n.GetKind() == "" || n.GetApiVersion() == "" {
			return nil, fmt.Errorf("%s: document %d is not a resource (it needs apiVersion and kind)", p, i)
		}
	}
	return read, nil
}

// relative returns p relative to dir, and whether p lies below dir.
func relative(p, dir string) (string, bool) {
	if dir == "" {
		return p, true
	}
	return strings.CutPrefix(p, dir+"/")
}

// ResourceList returns items as a ResourceList for functions, followed by
// extra items (such as in-cluster objects), with fnConfig (may be nil) as
// its functionConfig. The ResourceList holds the nodes given.
func ResourceList(items, extra []*yaml.RNode, fnConfig *yaml.RNode) *resourcelist.ResourceList {
	all := make([]*yaml.RNode, 0, len(items)+len(extra))
	return resourcelist.FromNodes(append(append(all, items...), extra...), fnConfig)
}

// Copy returns deep copies of the items, for a function to change without
// touching the originals.
func Copy(items []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, len(items))
	for i, n := range items {
		out[i] = yaml.NewRNode(yaml.CopyYNode(n.YNode()))
	}
	return out
}
