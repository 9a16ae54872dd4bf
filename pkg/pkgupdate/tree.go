package pkgupdate

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// tree is one version of a package tree (the old upstream, the new one, the
// downstream) as the merge reads it: its files, its packages (the root ""
// and every folder with a Kptfile), each package's Kptfile and lineage, and
// its resources by package, every one marked with kpt's merge comment.
type tree struct {
	name      string // as kpt names the three in its messages
	files     kptpkg.Files
	pkgs      []string
	kptfiles  map[string]*yaml.RNode
	lineage   map[string]kptfile.Lineage
	items     map[string][]*yaml.RNode // by package, in reading order
	pristine  []*yaml.RNode            // every item as read, before the merge comments
	owners    map[string]string        // a file's package, memoised
	resources map[string]bool          // the files read as resources
}

// readTree reads files as one version of a package tree. A Kptfile kpt
// would refuse and a resource file that does not parse are errors.
func readTree(files kptpkg.Files, name string) (*tree, error) {
	t := &tree{
		name: name, files: files, pkgs: files.Packages(),
		kptfiles: map[string]*yaml.RNode{}, lineage: map[string]kptfile.Lineage{},
		items: map[string][]*yaml.RNode{}, owners: map[string]string{},
	}
	items, err := files.Resources("", true)
	if err != nil {
		return nil, fmt.Errorf("the %s package: %w", name, err)
	}
	t.pristine = kptpkg.Copy(items)
	t.resources = map[string]bool{}
	for _, p := range files.ResourcePaths("", true) {
		t.resources[p] = true
	}
	kfDocs := map[string][]*yaml.RNode{}
	for _, n := range items {
		p := pathOf(n)
		if path.Base(p) == kptapi.FileName {
			kfDocs[p] = append(kfDocs[p], n)
			continue
		}
		if err := addMergeComment(n); err != nil {
			return nil, fmt.Errorf("the %s package: %s in %s: %w", name, describe(n), p, err)
		}
		bookkeepingLast(n)
		pkg := t.owner(p)
		t.items[pkg] = append(t.items[pkg], n)
	}
	for _, p := range slices.Sorted(maps.Keys(kfDocs)) {
		docs := kfDocs[p]
		kf, err := kptfile.Documents(p, docs)
		if err != nil {
			return nil, fmt.Errorf("the %s package: %w", name, err)
		}
		dir := strings.TrimSuffix(strings.TrimSuffix(p, kptapi.FileName), "/")
		t.kptfiles[dir] = kf
		t.lineage[dir], _ = kptfile.LineageOf(kf) // Documents checked it
	}
	return t, nil
}

// owner returns the package the file at p belongs to in this tree.
func (t *tree) owner(p string) string {
	pkg, ok := t.owners[p]
	if !ok {
		pkg = t.files.PackageOf(p)
		t.owners[p] = pkg
	}
	return pkg
}

// has reports whether the tree holds the package at dir (the root always).
func (t *tree) has(dir string) bool {
	return dir == "" || slices.Contains(t.pkgs, dir)
}

// unfetched reports whether the package at dir has an upstream kpt has not
// fetched yet (no upstreamLock).
func (t *tree) unfetched(dir string) bool {
	l := t.lineage[dir]
	return l.Upstream != nil && l.Lock == nil
}

// bookkeepingLast moves the reader's annotations after the resource's own,
// where they are when kpt reads a file it just wrote with merge comments:
// so that the three versions of a resource compare as kpt compares them.
func bookkeepingLast(n *yaml.RNode) {
	m := fieldpath.Lookup(n, fieldpath.Path{"metadata", "annotations"})
	if m == nil || m.YNode().Kind != yaml.MappingNode {
		return
	}
	var own, books []*yaml.Node
	c := m.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		if kptapi.IsBookkeeping(c[i].Value) {
			books = append(books, c[i], c[i+1])
		} else {
			own = append(own, c[i], c[i+1])
		}
	}
	m.YNode().Content = append(own, books...)
}
