package fanout

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/selector"
)

// target is one downstream target: the defaults of its child's downstream
// and, for a selected object, the object its expressions see.
type target struct {
	index          int // in spec.targets
	repoDefault    string
	packageDefault string
	object         *resourcelist.Item // nil for a repositories entry
}

// field is the path of the target's entry in the set.
func (t *target) field() string { return fmt.Sprintf("spec.targets[%d]", t.index) }

// String names the target for messages.
func (t *target) String() string {
	if t.object == nil {
		return fmt.Sprintf("target repository %q package %q of %s", t.repoDefault, t.packageDefault, t.field())
	}
	h := t.object.Header()
	return "target " + h.String() + " (" + h.Where() + ") of " + t.field()
}

// unroll lists the set's targets in order: each repositories entry (once per
// package name, or once with the upstream package's name), then the objects
// each selector selects in the set's namespace, sorted by name.
func unroll(rl *resourcelist.ResourceList, s *Set, repos *repositories) ([]target, []result.Result) {
	var (
		out []target
		rs  []result.Result
	)
	for i, t := range s.Spec.Targets {
		if len(t.Repositories) > 0 {
			out = append(out, repositoryTargets(i, t.Repositories, s.Spec.Upstream.Package)...)
			continue
		}
		var (
			sel   = s.Selectors[i]
			typ   = porch.TypeRepository
			name  *string
			items []*resourcelist.Item
		)
		if os := t.ObjectSelector; os != nil {
			typ, name = v1alpha1.TypeMeta{APIVersion: os.APIVersion, Kind: os.Kind}, os.Name
			items = rl.SelectKind(typ.APIVersion, typ.Kind, func(h resourcelist.Header) bool {
				return scope(h.Namespace) == s.Namespace() && (name == nil || h.Name == *name) && sel.Matches(h.Labels)
			})
		} else {
			items = repos.matching(sel)
		}
		if len(items) == 0 {
			rs = append(rs, s.warningf(fmt.Sprintf("spec.targets[%d]", i),
				"no objects selected by spec.targets[%d]: no %s in namespace %q matches %s",
				i, typ.Describe(), s.Namespace(), describe(sel.String(), name)))
		}
		slices.SortStableFunc(items, func(a, b *resourcelist.Item) int { return cmp.Compare(a.Header().Name, b.Header().Name) })
		for _, it := range items {
			out = append(out, target{index: i, repoDefault: it.Header().Name, packageDefault: s.Spec.Upstream.Package, object: it})
		}
	}
	return out, rs
}

func repositoryTargets(i int, rts []porch.RepositoryTarget, upstreamPackage string) []target {
	var out []target
	for _, rt := range rts {
		names := rt.PackageNames
		if len(names) == 0 {
			names = []string{upstreamPackage}
		}
		for _, pn := range names {
			out = append(out, target{index: i, repoDefault: rt.Name, packageDefault: pn})
		}
	}
	return out
}

// describe says what a selector (in kubectl's -l form) and name select.
func describe(sel string, name *string) string {
	s := "an empty selector"
	if sel != "" {
		s = strconv.Quote(sel)
	}
	if name != nil {
		s += fmt.Sprintf(" with name %q", *name)
	}
	return s
}

// objectInput is what expressions see of an object, as a map (object
// makes it only when an expression needs it whole): its name, namespace
// ("default" when it names none), labels and annotations (without the ones
// kpt and kptkit add while it travels) — nothing of its spec or status.
func objectInput(h resourcelist.Header) ref.Val {
	return metaInput(h.Name, scope(h.Namespace), objectLabels(h), objectAnnotations(h))
}

// objectLabels are an object's labels as expressions see them: never nil.
func objectLabels(h resourcelist.Header) map[string]string {
	if h.Labels == nil {
		return map[string]string{}
	}
	return h.Labels
}

// objectAnnotations are an object's annotations as expressions see them:
// without the ones kpt and kptkit add.
func objectAnnotations(h resourcelist.Header) map[string]string {
	annotations := make(map[string]string, len(h.Annotations))
	for k, v := range h.Annotations {
		if shown(k) {
			annotations[k] = v
		}
	}
	return annotations
}

// shown reports whether expressions see an annotation.
func shown(key string) bool {
	return !kptfile.IsBookkeeping(key) && key != v1alpha1.AnnotationInCluster
}

func metaInput(name, namespace string, labels, annotations map[string]string) ref.Val {
	a := types.DefaultTypeAdapter
	return types.NewStringInterfaceMap(a, map[string]any{
		"name":        name,
		"namespace":   namespace,
		"labels":      types.NewStringStringMap(a, labels),
		"annotations": types.NewStringStringMap(a, annotations),
	})
}

// upstreamRevision finds the set's upstream PackageRevision in the set's
// namespace; with no PackageRevision items at all it is nil, and no error.
func upstreamRevision(rl *resourcelist.ResourceList, s *Set) (*resourcelist.Item, []result.Result) {
	prs := rl.SelectKind(porch.V1alpha1, porch.KindRevision, func(h resourcelist.Header) bool {
		return scope(h.Namespace) == s.Namespace()
	})
	if len(prs) == 0 {
		return nil, nil
	}
	up := s.Spec.Upstream
	for _, pr := range prs {
		if revisionMatches(pr, up) {
			return pr, nil
		}
	}
	rev := string(up.Revision)
	if rev == "" {
		rev = up.WorkspaceName
	}
	return nil, []result.Result{s.errorf("spec.upstream", "could not find upstream package revision '%s/%s' in repo '%s'",
		up.Package, rev, up.Repo)}
}

// upstreamInput is what expressions see of the upstream: its
// PackageRevision, or, without one, its package name.
func upstreamInput(s *Set, pr *resourcelist.Item) ref.Val {
	if pr != nil {
		return objectInput(pr.Header())
	}
	return metaInput(s.Spec.Upstream.Package, s.Namespace(), map[string]string{}, map[string]string{})
}

// sizeBound is the size of the largest value expressions can see, and of
// anything inside one: the longest name, namespace, label or annotation (key
// or value) of the objects they see, the longest target default, the most
// labels or annotations of one object, and no less than the entries of the
// maps made of them (4) and the namespace "default".
func sizeBound(s *Set, upstream *resourcelist.Item, repos []*resourcelist.Item, targets []target) uint64 {
	n := max(len("default"), len(s.Namespace()), len(s.Spec.Upstream.Package))
	str := func(v string) { n = max(n, len(v)) }
	object := func(it *resourcelist.Item) {
		h := it.Header()
		str(h.Name)
		str(h.Namespace)
		for _, m := range []map[string]string{h.Labels, h.Annotations} {
			n = max(n, len(m))
			for k, v := range m {
				str(k)
				str(v)
			}
		}
	}
	if upstream != nil {
		object(upstream)
	}
	for _, it := range repos {
		object(it)
	}
	for i := range targets {
		t := &targets[i]
		str(t.repoDefault)
		str(t.packageDefault)
		if t.object != nil && !isRepository(s, t.object.Header()) { // repos has it
			object(t.object)
		}
	}
	return uint64(n)
}

// revisionMatches reports whether a PackageRevision is the upstream: same
// repository and package, and same revision or same workspace.
func revisionMatches(pr *resourcelist.Item, up *porch.Upstream) bool {
	get := func(field string) string {
		v, _ := fieldpath.String(pr.Node(), fieldpath.Path{"spec", field})
		return v
	}
	if get("repository") != up.Repo || get("packageName") != up.Package {
		return false
	}
	return (up.Revision != "" && get("revision") == string(up.Revision)) ||
		(up.WorkspaceName != "" && get("workspaceName") == up.WorkspaceName)
}

// repositories are the Repository items of the set's namespace, selected
// once for every repositorySelector and every template.
type repositories struct {
	all    []*resourcelist.Item          // in ResourceList order
	byName map[string]*resourcelist.Item // the first of each name
}

func newRepositories(rl *resourcelist.ResourceList, s *Set) *repositories {
	r := &repositories{byName: map[string]*resourcelist.Item{}}
	r.all = rl.SelectKind(porch.ConfigV1alpha1, porch.KindRepository, func(h resourcelist.Header) bool { return isRepository(s, h) })
	for _, it := range r.all {
		if name := it.Header().Name; r.byName[name] == nil {
			r.byName[name] = it
		}
	}
	return r
}

// isRepository reports whether an item is a Repository of the set's
// namespace.
func isRepository(s *Set, h resourcelist.Header) bool {
	return h.Is(porch.ConfigV1alpha1, porch.KindRepository) && scope(h.Namespace) == s.Namespace()
}

// matching returns the Repositories whose labels sel matches, in order.
func (r *repositories) matching(sel selector.Selector) []*resourcelist.Item {
	var out []*resourcelist.Item
	for _, it := range r.all {
		if sel.Matches(it.Header().Labels) {
			out = append(out, it)
		}
	}
	return out
}
