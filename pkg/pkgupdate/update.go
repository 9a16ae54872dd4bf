package pkgupdate

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Update merges a new upstream into an existing downstream package as `kpt
// pkg update --strategy resource-merge` does: old is the upstream at the
// downstream's upstreamLock, updated the upstream at origin, local the
// downstream as it is now. Resources are matched as kpt matches them and
// merged with kyaml's merge3; the Kptfile is merged as kpt merges it, its
// upstream and upstreamLock moved to origin; files and subpackages added or
// removed upstream are handled as kpt handles them; downstream edits are
// kept.
//
// A field both sides changed differently is a Conflict: Update then returns
// the local files unchanged and the conflicts, unless policy is
// TakeUpstream, kpt's own behaviour (the upstream's value wins), which
// returns the merged files and the conflicts.
func Update(old, updated, local kptpkg.Files, origin Origin, policy Policy) (kptpkg.Files, []Conflict, error) {
	if err := origin.check(); err != nil {
		return nil, nil, err
	}
	if origin.Commit == "" {
		return nil, nil, errors.New("cannot update from an upstream without a commit (a folder): clone the package again")
	}
	u, err := newUpdater(old, updated, local)
	if err != nil {
		return nil, nil, err
	}
	if err := u.run(origin); err != nil {
		return nil, nil, err
	}
	if len(u.conflicts) > 0 && policy != TakeUpstream {
		return local.Clone(), u.conflicts, nil
	}
	files, err := u.sink()
	if err != nil {
		return nil, nil, err
	}
	return files, u.conflicts, nil
}

// updater holds the three trees and the downstream package being made.
type updater struct {
	o, l, u   *tree
	items     map[string][]*yaml.RNode // the package's items by package
	kptfiles  map[string]*yaml.RNode
	base      kptpkg.Files             // the files, before the items are written
	before    map[string][]*yaml.RNode // the items base's resource files hold
	gone      []string                 // packages removed, or left alone with all they hold
	conflicts []Conflict
}

func newUpdater(old, updated, local kptpkg.Files) (*updater, error) {
	l, err := readTree(local, "local")
	if err != nil {
		return nil, err
	}
	lin := l.lineage[""]
	switch {
	case l.kptfiles[""] == nil:
		return nil, kptfile.Error(kptapi.FileName, errors.New("the package has none"))
	case lin.Upstream == nil || lin.Upstream.Git == nil:
		return nil, errors.New("package must have an upstream reference")
	case lin.Lock == nil || lin.Lock.Git == nil:
		return nil, errors.New("the package's Kptfile has no upstreamLock: nothing tells which upstream revision it was made from (clone it again)")
	}
	o, err := readTree(old, "original upstream")
	if err != nil {
		return nil, err
	}
	u, err := readTree(updated, "updated upstream")
	if err != nil {
		return nil, err
	}
	return &updater{
		o: o, l: l, u: u,
		items: maps.Clone(l.items), kptfiles: maps.Clone(l.kptfiles),
		base: local.Clone(), before: byFile(l.pristine),
	}, nil
}

// run updates every package of the tree, parents before subpackages.
func (up *updater) run(origin Origin) error {
	dirs := map[string]bool{"": true}
	for _, t := range []*tree{up.o, up.l, up.u} {
		for _, d := range t.pkgs {
			dirs[d] = true
		}
	}
	for _, d := range slices.SortedFunc(maps.Keys(dirs), kptpkg.ComparePaths) {
		if slices.ContainsFunc(up.gone, func(g string) bool { return kptpkg.Inside(d, g) }) {
			continue
		}
		var err error
		if d == "" {
			err = up.root(origin)
		} else {
			err = up.subpackage(d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// root merges the root package and moves its lineage to origin.
func (up *updater) root(origin Origin) error {
	if err := up.merge(""); err != nil {
		return err
	}
	kf := up.kptfiles[""]
	if err := kptfile.SetLineage(kf, origin.upstream(), origin.lock()); err != nil {
		return err
	}
	kptfile.Order(kf.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
	return nil
}

// subpackage updates the subpackage at d as kpt does, by where it is: added
// upstream (copied), deleted upstream (removed unless changed downstream),
// in all three (merged, its lineage taken from the new upstream; a remote
// subpackage the downstream moved to another upstream is left alone).
func (up *updater) subpackage(d string) error {
	inO, inL, inU := up.o.has(d), up.l.has(d), up.u.has(d)
	switch {
	case !inO && inL && inU:
		return fmt.Errorf("subpackage %q added in both upstream and local", d)
	case !inO && !inL && inU:
		up.copy(d)
	case inO && inL && !inU:
		if up.unchangedPackage(d) {
			up.remove(d)
		}
	case inO && inL && inU:
		return up.mergeSubpackage(d)
	}
	return nil
}

func (up *updater) mergeSubpackage(d string) error {
	if up.l.lineage[d].Upstream != nil {
		switch {
		case up.u.unfetched(d):
			return up.kptfile(d, false)
		case up.o.unfetched(d):
			return fmt.Errorf("subpackage %q: no origin available for package", d)
		case !reflect.DeepEqual(gitOf(up.l.lineage[d]), gitOf(up.o.lineage[d])):
			up.gone = append(up.gone, d)
			return nil
		}
	}
	return up.merge(d)
}

func gitOf(l kptfile.Lineage) any {
	if l.Upstream == nil {
		return nil
	}
	return l.Upstream.Git
}

// merge merges the package at d: its Kptfile, its resources, its other files.
func (up *updater) merge(d string) error {
	if err := up.kptfile(d, d == ""); err != nil {
		return err
	}
	out, conflicts, err := mergeResources(up.own(up.o, d), up.l.items[d], up.own(up.u, d))
	if err != nil {
		return err
	}
	up.items[d] = out
	up.conflicts = append(up.conflicts, conflicts...)
	up.replaceOtherFiles(d)
	return nil
}

// kptfile merges the Kptfile of the package at d; a subpackage's upstream
// and upstreamLock become the new upstream's.
func (up *updater) kptfile(d string, root bool) error {
	kf := up.kptfiles[d]
	found, err := mergeKptfile(kf, up.o.kptfiles[d], up.u.kptfiles[d])
	if err != nil {
		return fmt.Errorf("cannot merge %s: %w", pathOf(kf), err)
	}
	for _, f := range found {
		up.conflicts = append(up.conflicts, Conflict{
			Ref: refOf(kf), File: pathOf(kf), Field: f.path.String(),
			Original: f.original, Local: f.local, Upstream: f.upstream,
		})
	}
	if root {
		return nil
	}
	if ukf := up.u.kptfiles[d]; ukf != nil {
		for _, f := range []string{"upstream", "upstreamLock"} {
			if v := ukf.Field(f); v != nil {
				setNode(kf.YNode(), f, yaml.CopyYNode(v.Value.YNode()))
			}
		}
		kptfile.Order(kf.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
	}
	return nil
}

// own returns the resources of t that belong to the package at d, in t and
// in the downstream (whose package boundaries win, as in kpt).
func (up *updater) own(t *tree, d string) []*yaml.RNode {
	var out []*yaml.RNode
	for _, n := range t.items[d] {
		if up.l.owner(pathOf(n)) == d {
			out = append(out, n)
		}
	}
	return out
}

// copy adds the package at d from the new upstream: its own files (its
// subpackages come in their turn).
func (up *updater) copy(d string) {
	upstream := byFile(up.u.pristine)
	copied := map[string]bool{}
	for p, b := range up.u.files {
		if up.u.owner(p) == d {
			up.base[p] = b
			up.before[p] = upstream[p]
			copied[p] = true
		}
	}
	for pkg, items := range up.items {
		up.items[pkg] = slices.DeleteFunc(slices.Clone(items), func(n *yaml.RNode) bool { return copied[pathOf(n)] })
	}
	up.items[d] = up.u.items[d]
	up.kptfiles[d] = up.u.kptfiles[d]
}

// remove deletes the folder of the package at d, subpackages included.
func (up *updater) remove(d string) {
	for p := range up.base {
		if kptpkg.Inside(p, d) {
			delete(up.base, p)
		}
	}
	maps.DeleteFunc(up.items, func(pkg string, _ []*yaml.RNode) bool { return kptpkg.Inside(pkg, d) })
	maps.DeleteFunc(up.kptfiles, func(pkg string, _ *yaml.RNode) bool { return kptpkg.Inside(pkg, d) })
	up.gone = append(up.gone, d)
}

// unchangedPackage reports whether the downstream's package at d is the old
// upstream's, as kpt compares them: the same files, Kptfiles alike but for
// their lineage, resources alike but for the readers' annotations, other
// files byte for byte.
func (up *updater) unchangedPackage(d string) bool {
	of, lf := up.ownFiles(up.o, d), up.ownFiles(up.l, d)
	if !slices.Equal(slices.Sorted(maps.Keys(of)), slices.Sorted(maps.Keys(lf))) {
		return false
	}
	oi, li := byFile(up.o.items[d]), byFile(up.l.items[d])
	for p := range of {
		switch {
		case p == kptfilePath(d):
			if !same(lineageless(up.o.kptfiles[d]), lineageless(up.l.kptfiles[d])) {
				return false
			}
		case len(oi[p]) > 0 || len(li[p]) > 0:
			if len(oi[p]) != len(li[p]) {
				return false
			}
			for i := range oi[p] {
				if !unchanged(oi[p][i], li[p][i]) {
					return false
				}
			}
		case !bytes.Equal(of[p], lf[p]):
			return false
		}
	}
	return true
}

// ownFiles returns the files of t that belong to the package at d.
func (up *updater) ownFiles(t *tree, d string) map[string][]byte {
	out := map[string][]byte{}
	for p, b := range t.files {
		if t.owner(p) == d {
			out[p] = b
		}
	}
	return out
}

// lineageless returns a Kptfile without its upstream, upstreamLock and the
// readers' annotations.
func lineageless(kf *yaml.RNode) *yaml.Node {
	if kf == nil {
		return nil
	}
	c := yaml.CopyYNode(kf.YNode())
	_ = yaml.NewRNode(c).PipeE(yaml.Clear("upstream"))
	_ = yaml.NewRNode(c).PipeE(yaml.Clear("upstreamLock"))
	if a := yaml.NewRNode(c).Field("metadata"); a != nil {
		if an := a.Value.Field("annotations"); an != nil {
			dropBookkeeping(an.Value.YNode())
		}
	}
	return c
}

// replaceOtherFiles updates the package's files kpt does not merge (those
// that are not resources) as kpt's ReplaceNonKRMFiles does: a file the
// downstream did not change takes the new upstream's version, or goes when
// the new upstream has none; a file the downstream added or changed stays.
func (up *updater) replaceOtherFiles(d string) {
	o, l, u := up.otherFiles(up.o, d), up.otherFiles(up.l, d), up.otherFiles(up.u, d)
	edited := func(p string) bool {
		b, ok := o[p]
		return !ok || !bytes.Equal(b, l[p])
	}
	for p := range l {
		if _, ok := u[p]; !ok && !edited(p) {
			delete(up.base, p)
		}
	}
	for p, b := range u {
		if _, ok := l[p]; !ok || !edited(p) {
			up.base[p] = b
		}
	}
}

// otherFiles returns the files of the package at d in t that are not read as
// resources. Like kpt, it leaves out paths with ".git" in them.
func (up *updater) otherFiles(t *tree, d string) map[string][]byte {
	out := map[string][]byte{}
	for p, b := range t.files {
		rel, _ := strings.CutPrefix(p, d+"/")
		if !t.resources[p] && t.owner(p) == d && up.l.owner(p) == d && !strings.Contains(rel, ".git") {
			out[p] = b
		}
	}
	return out
}

// sink writes the package's items into its files.
func (up *updater) sink() (kptpkg.Files, error) {
	var items, before []*yaml.RNode
	for _, d := range slices.Sorted(maps.Keys(up.items)) {
		items = append(items, up.items[d]...)
	}
	for _, d := range slices.Sorted(maps.Keys(up.kptfiles)) {
		if up.kptfiles[d] != nil {
			items = append(items, up.kptfiles[d])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(up.before)) {
		before = append(before, up.before[p]...)
	}
	return kptpkg.Sink(items, before, up.base)
}

// byFile groups items by their file.
func byFile(items []*yaml.RNode) map[string][]*yaml.RNode {
	out := map[string][]*yaml.RNode{}
	for _, n := range items {
		out[pathOf(n)] = append(out[pathOf(n)], n)
	}
	return out
}

func kptfilePath(d string) string {
	if d == "" {
		return "Kptfile"
	}
	return d + "/Kptfile"
}
