package deps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// Catalog is every package the CatalogPackages offer, by name; a package
// offered by several repositories has one entry per repository.
type Catalog struct {
	byName map[string][]*Package
}

// Package is what one repository offers of one package.
type Package struct {
	Name   string
	Repo   string
	Latest string     // latestVersion as written, "" when unset or unusable
	Vers   []*Version // highest first
}

// Version is one version of a package: what it depends on, provides and
// requires.
type Version struct {
	Raw      string // as written, for PackageVariant revisions
	SemVer   *semver.Version
	Deps     []v1alpha1.Dependency
	APIs     []v1alpha1.API
	Provides []string
	Requires []string
	// ReqAPIs are the APIs the version uses: each makes the package that
	// provides it a dependency, the provider chosen when resolving.
	ReqAPIs []v1alpha1.RequiredAPI
	// Params are the parameters the version declares.
	Params []v1alpha1.Parameter
	// unlisted marks an installed version the catalog does not list: what
	// it provides is unknown, so it is taken to provide what is asked of it.
	unlisted bool
}

// Installed is one package of the inventory.
type Installed struct {
	Package      string
	Raw          string
	SemVer       *semver.Version
	Deps         []v1alpha1.Dependency
	HasDeps      bool // the InstalledPackage lists its dependencies
	AsDependency bool
	// Outputs are the installed package's outputs (status.outputs).
	Outputs []v1alpha1.Output
	Header  resourcelist.Header
}

// NewCatalog returns a catalog of the given packages.
func NewCatalog(pkgs ...*Package) *Catalog {
	c := &Catalog{byName: map[string][]*Package{}}
	for _, p := range pkgs {
		c.byName[p.Name] = append(c.byName[p.Name], p)
	}
	return c
}

// Offers returns the entries of a package (one per repository).
func (c *Catalog) Offers(name string) []*Package { return c.byName[name] }

// Names returns every package name, sorted.
func (c *Catalog) Names() []string {
	out := make([]string, 0, len(c.byName))
	for n := range c.byName {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Find returns the entry of a package from a repository ("": the only
// one), or why there is none.
func (c *Catalog) Find(name, repo string) (*Package, string) {
	offers := c.byName[name]
	switch {
	case len(offers) == 0:
		return nil, "no catalog offers it"
	case repo != "":
		for _, p := range offers {
			if p.Repo == repo {
				return p, ""
			}
		}
		return nil, fmt.Sprintf("repository %q does not offer it (offered by %s)", repo, repos(offers))
	case len(offers) > 1:
		return nil, fmt.Sprintf("it is offered by several repositories (%s): choose one with spec.repo in a PackageInstall", repos(offers))
	}
	return offers[0], ""
}

func repos(pkgs []*Package) string {
	var out []string
	for _, p := range pkgs {
		out = append(out, fmt.Sprintf("%q", p.Repo))
	}
	return strings.Join(out, ", ")
}

// Version returns the package's version equal to v, or nil.
func (p *Package) Version(v *semver.Version) *Version {
	for _, x := range p.Vers {
		if x.SemVer.Equal(v) {
			return x
		}
	}
	return nil
}

// ProvidesAPI reports whether the version provides an API: by group and
// kind (and version, when given), or by group and resource. An API given
// by group and version alone (an APIService) provides every kind and
// resource of that group version.
func (v *Version) ProvidesAPI(group, version, kind, resource string) bool {
	return v.unlisted || slices.ContainsFunc(v.APIs, func(a v1alpha1.API) bool {
		if a.Group != group {
			return false
		}
		if a.Kind == "" && a.Resource == "" {
			return version == "" || a.Version == "" || a.Version == version
		}
		if kind != "" {
			return a.Kind == kind && (version == "" || a.Version == "" || a.Version == version)
		}
		return a.Resource == resource || a.Resource == "" && Plural(a.Kind) == resource
	})
}

// Plural guesses the resource name of a kind the way Kubernetes' defaults
// do (Certificate → certificates, Ingress → ingresses, Policy → policies),
// for catalogs that give a kind without its resource.
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case k == "":
		return ""
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "z"),
		strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	case strings.HasSuffix(k, "y") && len(k) > 1 && !strings.ContainsRune("aeiou", rune(k[len(k)-2])):
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}
