package deps

import (
	"slices"
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

// DiscoveredRoots finds the catalog packages that provide the APIs the
// package's items and RBAC rules use. An API no catalog package provides is
// a warning; one several provide is settled by the installed one, then by
// one a PackageInstall asks for, else it is an error naming them.
func DiscoveredRoots(rl *resourcelist.ResourceList, cat *Catalog, installed map[string]*Installed, installs []Install, opts discover.Options) ([]Root, []result.Result) {
	opts.Skip = ownOutput
	needs, rs := discover.Find(rl, opts)
	index := providers(cat)
	var roots []Root
	at := map[[2]string]int{} // what needs it, provider → its root
	for _, alts := range groupAlternatives(needs) {
		n := alts[0]
		var found []string
		for _, a := range alts {
			if found = index.find(a.API); len(found) > 0 {
				n = a
				break
			}
		}
		switch {
		case len(found) == 0:
			rs = append(rs, n.Header.Attach(result.Warningf("%s: %s uses %s, which no catalog package provides", n.Header.Where(), n.By(), apisText(alts)).WithField(n.Field)))
			continue
		case len(found) > 1:
			found = preferred(found, installed, installs)
		}
		if len(found) > 1 {
			rs = append(rs, n.Header.Attach(result.Errorf("%s: %s uses %s, which several catalog packages provide (%s): add a PackageInstall for the one to use",
				n.Header.Where(), n.By(), n.API, strings.Join(found, ", ")).WithField(n.Field)))
			continue
		}
		key := [2]string{n.By(), found[0]}
		if i, ok := at[key]; ok {
			roots[i].APIs = append(roots[i].APIs, n.API)
			continue
		}
		at[key] = len(roots)
		h := n.Header
		roots = append(roots, Root{Package: found[0], By: n.By(), APIs: []discover.API{n.API}, Header: &h})
	}
	return roots, rs
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

// preferred narrows the providers of an API to the installed ones, else to
// those a PackageInstall asks for, when that leaves any.
func preferred(found []string, installed map[string]*Installed, installs []Install) []string {
	if in := slices.DeleteFunc(slices.Clone(found), func(n string) bool { return installed[n] == nil }); len(in) > 0 {
		return in
	}
	asked := slices.DeleteFunc(slices.Clone(found), func(n string) bool {
		return !slices.ContainsFunc(installs, func(i Install) bool { return i.Spec.Package == n })
	})
	if len(asked) > 0 {
		return asked
	}
	return found
}

// providerIndex maps APIs to the packages some version of which provides
// them.
type providerIndex struct {
	byKind     map[[2]string][]providerAPI // group, kind
	byResource map[[2]string][]string      // group, resource
}

type providerAPI struct {
	pkg     string
	version string
}

func providers(cat *Catalog) providerIndex {
	idx := providerIndex{byKind: map[[2]string][]providerAPI{}, byResource: map[[2]string][]string{}}
	for _, name := range cat.Names() {
		for _, pkg := range cat.Offers(name) {
			for _, v := range pkg.Vers {
				for _, a := range v.APIs {
					k := [2]string{a.Group, a.Kind}
					idx.byKind[k] = append(idx.byKind[k], providerAPI{pkg: name, version: a.Version})
					res := a.Resource
					if res == "" {
						res = Plural(a.Kind)
					}
					r := [2]string{a.Group, res}
					idx.byResource[r] = append(idx.byResource[r], name)
				}
			}
		}
	}
	return idx
}

// find returns the names of the packages that provide an API, sorted.
func (idx providerIndex) find(a discover.API) []string {
	var out []string
	if a.Kind != "" {
		for _, p := range idx.byKind[[2]string{a.Group, a.Kind}] {
			if p.version == "" || a.Version == "" || p.version == a.Version {
				out = append(out, p.pkg)
			}
		}
	} else {
		out = append(out, idx.byResource[[2]string{a.Group, a.Resource}]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
