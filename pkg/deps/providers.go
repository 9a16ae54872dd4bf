package deps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/result"
)

// Providers maps APIs to the packages some version of which provides
// them: by group and kind, by group and resource, and whole group versions
// (APIServices).
type Providers struct {
	byKind     map[[2]string][]providerAPI // group, kind
	byResource map[[2]string][]string      // group, resource
	byGroup    map[string][]providerAPI    // group → packages serving all of it
}

type providerAPI struct {
	pkg     string
	version string
}

// IndexProviders indexes what the catalog's packages provide.
func IndexProviders(cat *Catalog) *Providers {
	idx := &Providers{byKind: map[[2]string][]providerAPI{}, byResource: map[[2]string][]string{}, byGroup: map[string][]providerAPI{}}
	for _, name := range cat.Names() {
		for _, pkg := range cat.Offers(name) {
			for _, v := range pkg.Vers {
				for _, a := range v.APIs {
					idx.add(name, a.Group, a.Version, a.Kind, a.Resource)
				}
			}
		}
	}
	return idx
}

func (idx *Providers) add(name, group, version, kind, resource string) {
	if kind == "" && resource == "" {
		idx.byGroup[group] = append(idx.byGroup[group], providerAPI{pkg: name, version: version})
		return
	}
	if kind != "" {
		k := [2]string{group, kind}
		idx.byKind[k] = append(idx.byKind[k], providerAPI{pkg: name, version: version})
	}
	if resource == "" {
		resource = Plural(kind)
	}
	r := [2]string{group, resource}
	idx.byResource[r] = append(idx.byResource[r], name)
}

// Find returns the names of the packages that provide an API, sorted.
func (idx *Providers) Find(a discover.API) []string {
	var out []string
	match := func(ps []providerAPI) {
		for _, p := range ps {
			if p.version == "" || a.Version == "" || p.version == a.Version {
				out = append(out, p.pkg)
			}
		}
	}
	match(idx.byGroup[a.Group])
	if a.Kind != "" {
		match(idx.byKind[[2]string{a.Group, a.Kind}])
	} else {
		out = append(out, idx.byResource[[2]string{a.Group, a.Resource}]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Chooser picks the provider of an API that several packages provide.
type Chooser struct {
	Installed map[string]*Installed
	// Providers is ResolveDeps.providers: API group → package.
	Providers map[string]string
	// Asked are the packages PackageInstalls ask for.
	Asked []string
}

// Choose returns the provider of an API of group among the packages that
// provide it (found, sorted): the installed one, else the one providers
// names for the group, else the one a PackageInstall asks for, else the
// only one. Otherwise it returns "" and why no provider could be chosen,
// naming the candidates.
func (c Chooser) Choose(group string, found []string) (string, string) {
	named := c.Providers[group]
	if in := slices.DeleteFunc(slices.Clone(found), func(n string) bool { return c.Installed[n] == nil }); len(in) == 1 {
		return in[0], ""
	} else if len(in) > 1 {
		if slices.Contains(in, named) {
			return named, ""
		}
		return "", fmt.Sprintf("several installed packages provide (%s): choose one with providers: {%s: <package>} in the ResolveDeps", strings.Join(in, ", "), group)
	}
	if named != "" {
		if slices.Contains(found, named) {
			return named, ""
		}
		return "", fmt.Sprintf("providers names %s for group %s, but it does not provide this API; the packages that do: %s", named, group, strings.Join(found, ", "))
	}
	if asked := slices.DeleteFunc(slices.Clone(found), func(n string) bool { return !slices.Contains(c.Asked, n) }); len(asked) == 1 {
		return asked[0], ""
	}
	if len(found) == 1 {
		return found[0], ""
	}
	return "", fmt.Sprintf("several catalog packages provide (%s) and none is installed: choose one with providers: {%s: <package>} in the ResolveDeps, or a PackageInstall", strings.Join(found, ", "), group)
}

// apiProblems reports, for each chosen version, the APIs it uses that no
// catalog package provides (a warning: the cluster may have them) and
// those whose provider cannot be chosen (an error naming the candidates).
func (p *problem) apiProblems(picks []pick) []result.Result {
	var rs []result.Result
	for _, k := range picks {
		if k.ver == nil {
			continue
		}
		var (
			none []string
			whys []string
			uses = map[string][]string{} // why → the APIs it is about
		)
		for _, a := range k.ver.ReqAPIs {
			pick, why := p.provider(a)
			switch {
			case pick != "":
			case why == "":
				none = append(none, apiOf(a).String())
			default:
				if _, seen := uses[why]; !seen {
					whys = append(whys, why)
				}
				uses[why] = append(uses[why], apiOf(a).String()+because(a.Reason))
			}
		}
		for _, why := range whys {
			rs = append(rs, attach(result.Errorf("%s %s uses %s, which %s", k.n.name, k.ver.Raw, strings.Join(uses[why], ", "), why), p.rootHeader(k.id), ""))
		}
		if len(none) > 0 {
			rs = append(rs, attach(result.Warningf("%s %s uses %s, which no catalog package provides", k.n.name, k.ver.Raw, strings.Join(none, ", ")), p.rootHeader(k.id), ""))
		}
	}
	return rs
}

// because renders a reason in parentheses, or nothing.
func because(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}
