package deps

import (
	"strconv"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// InstallRoots turns PackageInstalls into roots.
func InstallRoots(installs []Install) []Root {
	out := make([]Root, 0, len(installs))
	for _, in := range installs {
		h := in.Item.Header()
		out = append(out, Root{Package: in.Spec.Package, Repo: in.Spec.Repo, Range: in.Spec.Version, By: h.String(), Header: &h})
	}
	return out
}

// ownOutput reports whether an item is one resolve-deps wrote: it is not
// package content to discover dependencies from.
func ownOutput(h resourcelist.Header) bool {
	return isType(h, porch.TypePackageVariant) && h.Labels[v1alpha1.LabelResolvedPackage] != ""
}

// DiscoveredRoots finds, in index, the catalog packages that provide the
// APIs the package's items and RBAC rules use. An API no catalog package
// provides is a warning; one several provide is settled as Choose says,
// else it is an error naming them.
func DiscoveredRoots(rl *resourcelist.ResourceList, index *Providers, ch Chooser, opts discover.Options) ([]Root, []result.Result) {
	opts.Skip = ownOutput
	needs, rs := discover.Find(rl, opts)
	var (
		roots []Root
		none  unprovided
	)
	at := map[[2]string]int{} // what needs it, provider → its root
	for _, alts := range groupAlternatives(needs) {
		n := alts[0]
		var found []string
		for _, a := range alts {
			if found = index.Find(a.API); len(found) > 0 {
				n = a
				break
			}
		}
		if len(found) == 0 {
			none.add(alts)
			continue
		}
		pick, why := ch.Choose(n.API.Group, found)
		if pick == "" {
			rs = append(rs, n.Header.Attach(result.Errorf("%s: %s uses %s, which %s", n.Header.Where(), n.By(), n.API, why).WithField(n.Field)))
			continue
		}
		key := [2]string{n.By(), pick}
		if i, ok := at[key]; ok {
			roots[i].APIs = append(roots[i].APIs, n.API)
			continue
		}
		at[key] = len(roots)
		h := n.Header
		roots = append(roots, Root{Package: pick, By: n.By(), APIs: []discover.API{n.API}, Header: &h})
	}
	return roots, append(rs, none.warnings()...)
}

// unprovided collects the APIs no catalog package provides, by what uses
// them (an item, or one of its RBAC rules), in order.
type unprovided struct {
	by   []string
	uses map[string][][]discover.Need
}

func (u *unprovided) add(alts []discover.Need) {
	by := alts[0].By()
	if u.uses == nil {
		u.uses = map[string][][]discover.Need{}
	}
	if _, ok := u.uses[by]; !ok {
		u.by = append(u.by, by)
	}
	u.uses[by] = append(u.uses[by], alts)
}

// warnings are one per item or rule. kpt prints a result's resource and
// field before its message, so the message says what is used and where
// the item's file is, without naming the item again.
func (u *unprovided) warnings() []result.Result {
	var rs []result.Result
	for _, by := range u.by {
		uses := u.uses[by]
		n := uses[0][0]
		msg := "uses " + usesText(uses) + ", which no catalog package provides"
		if n.Header.Path != "" {
			msg += " (in " + n.Header.Path + ")"
		}
		rs = append(rs, n.Header.Attach(result.Warningf("%s", msg).WithField(n.Field)))
	}
	return rs
}

// usesText names the APIs: `resources "a", "b" and "c" of group g` when
// they are resources of one group, else each (alternatives joined by
// "or"), joined by "and".
func usesText(uses [][]discover.Need) string {
	group, resources := uses[0][0].API.Group, []string{}
	for _, alts := range uses {
		if len(alts) != 1 || alts[0].API.Kind != "" || alts[0].API.Group != group {
			resources = nil
			break
		}
		resources = append(resources, strconv.Quote(alts[0].API.Resource))
	}
	if len(resources) > 1 {
		return "resources " + andList(resources) + " of group " + group
	}
	parts := make([]string, len(uses))
	for i, alts := range uses {
		parts[i] = apisText(alts)
	}
	return andList(parts)
}

// andList joins words as a sentence does: "a", "a and b", "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// groupAlternatives puts the needs that are alternatives of one another
// (one RBAC resource named in several groups) together, in order; every
// other need stands alone. The first alternative a catalog package provides
// is the one used.
func groupAlternatives(needs []discover.Need) [][]discover.Need {
	var out [][]discover.Need
	at := map[[2]string]int{}
	for _, n := range needs {
		if n.AnyOf == "" {
			out = append(out, []discover.Need{n})
			continue
		}
		key := [2]string{n.By(), n.AnyOf}
		if i, ok := at[key]; ok {
			out[i] = append(out[i], n)
			continue
		}
		at[key] = len(out)
		out = append(out, []discover.Need{n})
	}
	return out
}

func apisText(alts []discover.Need) string {
	parts := make([]string, len(alts))
	for i, a := range alts {
		parts[i] = a.API.String()
	}
	return strings.Join(parts, " or ")
}
