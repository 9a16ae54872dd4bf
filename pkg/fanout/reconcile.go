package fanout

import (
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

var (
	specPath     = fieldpath.Path{"spec"}
	downRepoPath = fieldpath.Path{"spec", "downstream", "repo"}
	downPkgPath  = fieldpath.Path{"spec", "downstream", "package"}
)

// maxStaleListed is how many kept children a warning names.
const maxStaleListed = 10

// tally counts what reconciling did.
type tally struct{ created, updated, unchanged, deleted int }

// reconcile brings the set's children in rl to want, as Porch does: an
// existing child (labelled with the set's name, in its namespace) is matched
// by the identifier its spec gives, not by its name; a matched child gets
// only its spec replaced, and only when it differs; a new one is appended;
// one no longer wanted is deleted — unless some target failed, when deleting
// could remove the child of a target that is only broken for now.
func reconcile(rl *resourcelist.ResourceList, s *Set, want []*desired, failed bool, b *builder) []result.Result {
	var (
		n     tally
		rs    []result.Result
		byID  = map[string]*resourcelist.Item{}
		stale []*resourcelist.Item
	)
	for _, it := range rl.SelectKind(porch.ConfigV1alpha1, porch.KindVariant, s.isChild) {
		repo, _ := fieldpath.String(it.Node(), downRepoPath)
		pkg, _ := fieldpath.String(it.Node(), downPkgPath)
		if id := Identifier(s.Metadata.Name, repo, pkg); byID[id] == nil {
			byID[id] = it
		} else {
			stale = append(stale, it) // a second child for one target
		}
	}
	var (
		fresh   []*desired
		up      = b.upstream(s)
		scratch builder // each spec compared, then its nodes reused
	)
	for _, d := range want {
		it := byID[d.id]
		if it == nil {
			fresh = append(fresh, d)
			continue
		}
		delete(byID, d.id)
		sp := scratch.spec(d.spec, up, d.repo, d.pkg)
		if equal(fieldpath.Lookup(it.Node(), specPath).YNode(), sp) {
			n.unchanged++
		} else {
			_ = fieldpath.Set(it.Edit(), specPath, yaml.NewRNode(yaml.CopyYNode(sp)))
			n.updated++
		}
		scratch.reset()
	}
	for _, it := range byID {
		stale = append(stale, it)
	}
	rs = append(rs, removeStale(rl, s, stale, failed, &n)...)
	rs = append(rs, create(rl, s, fresh, up, &n)...)
	return append(rs, s.infof("PackageVariants: %d created, %d updated, %d unchanged, %d deleted",
		n.created, n.updated, n.unchanged, n.deleted))
}

// isChild reports whether an item is one of the set's PackageVariants in
// the package (an in-cluster copy is an input, never changed).
func (s *Set) isChild(h resourcelist.Header) bool {
	return h.Is(porch.ConfigV1alpha1, porch.KindVariant) && h.Labels[porch.LabelVariantSet] == s.Metadata.Name &&
		scope(h.Namespace) == s.Namespace() && !h.InCluster()
}

// removeStale deletes the children no longer wanted, or keeps them with a
// warning when some target failed.
func removeStale(rl *resourcelist.ResourceList, s *Set, stale []*resourcelist.Item, failed bool, n *tally) []result.Result {
	if len(stale) == 0 {
		return nil
	}
	sortItems(stale)
	if !failed {
		for _, it := range stale {
			rl.Delete(it)
		}
		n.deleted = len(stale)
		return nil
	}
	names := make([]string, 0, len(stale))
	for _, it := range stale[:min(len(stale), maxStaleListed)] {
		names = append(names, it.Header().String())
	}
	if len(stale) > maxStaleListed {
		names = append(names, fmt.Sprintf("and %d more", len(stale)-maxStaleListed))
	}
	return []result.Result{s.warningf("", "kept %s that no target wants any more (%s): nothing is deleted while a target fails",
		variants(len(stale)), strings.Join(names, ", "))}
}

// create appends the new children, refusing a name another PackageVariant
// of the namespace has, or a file another item is in. Each is written as
// text on one of a few goroutines (see writer), then added in order.
func create(rl *resourcelist.ResourceList, s *Set, fresh []*desired, up *yaml.Node, n *tally) []result.Result {
	if len(fresh) == 0 {
		return nil
	}
	names := map[string]resourcelist.Header{}
	paths := map[string]resourcelist.Header{}
	rl.Select(func(h resourcelist.Header) bool {
		if h.InCluster() {
			return false // the cluster's objects are inputs, not package files
		}
		if h.Is(porch.ConfigV1alpha1, porch.KindVariant) && scope(h.Namespace) == s.Namespace() {
			names[h.Name] = h
		}
		if h.Path != "" {
			paths[h.Path] = h
		}
		return false
	})
	var (
		rs    []result.Result
		ok    []*desired
		files []string
	)
	for _, d := range fresh {
		p := path.Join(s.Dir, d.name+".yaml")
		if h, found := names[d.name]; found {
			rs = append(rs, s.errorf(d.target.field(), "%s: PackageVariant %q exists already (%s) and is not this set's (it lacks the label %s: %s)",
				d.target, d.name, h.Where(), porch.LabelVariantSet, s.Metadata.Name))
			continue
		}
		if h, found := paths[p]; found {
			rs = append(rs, s.errorf(d.target.field(), "%s: cannot write PackageVariant %q to %s: %s is there already",
				d.target, d.name, p, h))
			continue
		}
		ok, files = append(ok, d), append(files, p)
	}
	var (
		encoded = make([]resourcelist.Encoded, len(ok))
		errs    = make([]error, len(ok))
		w       = parallel.Workers(len(ok), minRun)
		writers = make([]writer, w)
	)
	parallel.Do(len(ok), w, func(w, i int) {
		encoded[i], errs[i] = writers[w].encode(s, ok[i], files[i], up)
	})
	for i, d := range ok {
		if errs[i] != nil {
			rs = append(rs, s.errorf(d.target.field(), "%s: cannot add PackageVariant %q: %v", d.target, d.name, errs[i]))
			continue
		}
		rl.AddEncoded(encoded[i])
		n.created++
	}
	return rs
}

// variants counts PackageVariants in words: "1 PackageVariant", "2 PackageVariants".
func variants(n int) string {
	if n == 1 {
		return "1 " + porch.KindVariant
	}
	return fmt.Sprintf("%d %ss", n, porch.KindVariant)
}
