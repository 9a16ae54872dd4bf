package catalog

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Annotations of a package's Kptfile that name its Hub-style capabilities,
// comma-separated.
const (
	AnnotationProvides = "kptkit.dev/provides"
	AnnotationRequires = "kptkit.dev/requires"
)

// pkgView is one package of a tree: its items (subpackages included), the
// ones that are its own, and its Kptfile.
type pkgView struct {
	dir   string
	items []*yaml.RNode
	own   map[*yaml.RNode]bool
	warns []result.Result
}

// version reads what the package is at this version: what it provides,
// requires, depends on and declares. A CRD, APIService or Parameters item
// that cannot be read makes the version unreadable.
func (v *pkgView) version(source v1alpha1.CatalogVersion) (v1alpha1.CatalogVersion, *bad) {
	cv := source
	rl := kptpkg.ResourceList(v.items, nil, nil)
	apis, b := v.provides(rl)
	if b != nil {
		return cv, b
	}
	cv.Provides.APIs = apis
	if cv.Parameters, b = v.parameters(rl); b != nil {
		return cv, b
	}
	cv.Requires.APIs = v.requires(rl)
	cv.Dependencies = v.dependencies(rl)
	cv.Provides.Capabilities, cv.Requires.Capabilities = v.capabilities(rl)
	return cv, nil
}

// where names an item for reasons: `Kind/name in file`, the file relative
// to the package.
func (v *pkgView) where(h resourcelist.Header) string {
	return fmt.Sprintf("%s in %s", h, relTo(h.Path, v.dir))
}

// provides lists the APIs of the package's CRDs (every served version) and
// APIServices (their whole group version), sorted.
func (v *pkgView) provides(rl *resourcelist.ResourceList) ([]v1alpha1.API, *bad) {
	var out []v1alpha1.API
	for _, it := range rl.Select(func(h resourcelist.Header) bool { return !h.InCluster() }) {
		h := it.Header()
		switch {
		case h.Kind == "CustomResourceDefinition" && h.Group() == "apiextensions.k8s.io":
			apis, err := crdAPIs(it.Node())
			if err != nil {
				return nil, &bad{file: h.Path, msg: fmt.Sprintf("%s: %v", h, err)}
			}
			out = append(out, apis...)
		case h.Kind == "APIService" && h.Group() == "apiregistration.k8s.io":
			var spec struct {
				Group   string `yaml:"group"`
				Version string `yaml:"version"`
			}
			n := fieldpath.Lookup(it.Node(), fieldpath.Path{"spec"})
			if n == nil || len(decode.Into(n.YNode(), &spec, decode.Options{}, "spec")) > 0 || spec.Group == "" || spec.Version == "" {
				return nil, &bad{file: h.Path, msg: fmt.Sprintf("%s: spec.group and spec.version must be strings", h)}
			}
			out = append(out, v1alpha1.API{Group: spec.Group, Version: spec.Version})
		}
	}
	slices.SortFunc(out, func(a, b v1alpha1.API) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Version, b.Version))
	})
	return slices.Compact(out), nil
}

// crd is the part of a CustomResourceDefinition that names its API.
type crd struct {
	Group string `yaml:"group"`
	Names struct {
		Kind   string `yaml:"kind"`
		Plural string `yaml:"plural"`
	} `yaml:"names"`
	Version  string `yaml:"version"` // v1beta1
	Versions []struct {
		Name   string `yaml:"name"`
		Served *bool  `yaml:"served"`
	} `yaml:"versions"`
}

func crdAPIs(n *yaml.RNode) ([]v1alpha1.API, error) {
	spec := fieldpath.Lookup(n, fieldpath.Path{"spec"})
	if spec == nil {
		return nil, fmt.Errorf("it has no spec")
	}
	var c crd
	if errs := decode.Into(spec.YNode(), &c, decode.Options{}, "spec"); len(errs) > 0 {
		return nil, errs[0]
	}
	switch {
	case c.Group == "":
		return nil, fmt.Errorf("spec.group is required")
	case c.Names.Kind == "":
		return nil, fmt.Errorf("spec.names.kind is required")
	case c.Names.Plural == "":
		return nil, fmt.Errorf("spec.names.plural is required")
	}
	var out []v1alpha1.API
	add := func(version string) {
		out = append(out, v1alpha1.API{Group: c.Group, Version: version, Kind: c.Names.Kind, Resource: c.Names.Plural})
	}
	for _, ver := range c.Versions {
		if ver.Name != "" && (ver.Served == nil || *ver.Served) {
			add(ver.Name)
		}
	}
	if len(c.Versions) == 0 && c.Version != "" {
		add(c.Version)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("it serves no version (spec.versions[].served)")
	}
	return out, nil
}

// requires lists the APIs the package's items and RBAC rules use, with the
// first item or rule that uses each: what resolve-deps would discover in
// the package, without what kpt itself reads (Kptfiles, function configs).
func (v *pkgView) requires(rl *resourcelist.ResourceList) []v1alpha1.RequiredAPI {
	configs := functionConfigs(rl)
	// Discovery's warnings (rules naming every group or resource) are left
	// to resolve-deps, when it runs on the package itself.
	needs, _ := discover.Find(rl, discover.Options{APIs: true, RBAC: true, Skip: func(h resourcelist.Header) bool {
		return configs[h.Path]
	}})
	var out []v1alpha1.RequiredAPI
	for _, n := range needs {
		if slices.ContainsFunc(out, func(o v1alpha1.RequiredAPI) bool {
			return o.Group == n.API.Group && o.Kind == n.API.Kind && o.Resource == n.API.Resource
		}) {
			continue
		}
		reason := v.where(n.Header)
		if n.Field != "" {
			reason = fmt.Sprintf("%s %s in %s", n.Header, n.Field, relTo(n.Header.Path, v.dir))
		}
		out = append(out, v1alpha1.RequiredAPI{Group: n.API.Group, Kind: n.API.Kind, Resource: n.API.Resource, Reason: reason})
	}
	return out
}

// functionConfigs are the files the package tree's Kptfiles name as
// function configs (configPath): kpt reads them, nothing applies them.
func functionConfigs(rl *resourcelist.ResourceList) map[string]bool {
	out := map[string]bool{}
	for _, it := range rl.Select(resourcelist.Header.IsKptfile) {
		dir := path.Dir(it.Header().Path)
		for _, stage := range []string{"mutators", "validators"} {
			fns := fieldpath.Lookup(it.Node(), fieldpath.Path{"pipeline", stage})
			if fns == nil || fns.YNode().Kind != yaml.SequenceNode {
				continue
			}
			for _, fn := range fns.YNode().Content {
				if p, ok := fieldpath.String(yaml.NewRNode(fn), fieldpath.Path{"configPath"}); ok && p != "" {
					out[path.Clean(path.Join(dir, p))] = true
				}
			}
		}
	}
	return out
}

// dependencies are the upstreams of the PackageVariants the package holds
// (Nephio packages carry PackageVariants for the packages they need):
// `revision: vN` pins that version, `workspaceName: main` (or none) means
// the latest.
func (v *pkgView) dependencies(rl *resourcelist.ResourceList) []v1alpha1.Dependency {
	var out []v1alpha1.Dependency
	for _, it := range rl.Select(func(h resourcelist.Header) bool {
		return h.Is(porch.ConfigV1alpha1, porch.KindVariant) && !h.InCluster()
	}) {
		h := it.Header()
		var up porch.Upstream
		n := fieldpath.Lookup(it.Node(), fieldpath.Path{"spec", "upstream"})
		if n != nil {
			decode.Into(n.YNode(), &up, decode.Options{}, "spec.upstream")
		}
		if up.Package == "" {
			v.warn(h, "spec.upstream", "%s names no upstream package: it is not a dependency", v.where(h))
			continue
		}
		d := v1alpha1.Dependency{Package: up.Package, Repo: up.Repo, Reason: v.where(h)}
		switch rev := string(up.Revision); {
		case rev != "" && rev != "-1":
			if !strings.HasPrefix(rev, "v") {
				rev = "v" + rev
			}
			ver, err := deps.ParseVersion(rev)
			if err != nil {
				v.warn(h, "spec.upstream.revision", "%s: upstream revision %q is not a version: taken as the latest", v.where(h), up.Revision)
				break
			}
			d.Version = "=" + ver.String()
		case up.WorkspaceName != "" && up.WorkspaceName != "main":
			v.warn(h, "spec.upstream.workspaceName", "%s takes the upstream's workspace %q, which is not a published version: taken as the latest", v.where(h), up.WorkspaceName)
		}
		if d.Package == v.dir || slices.ContainsFunc(out, func(o v1alpha1.Dependency) bool {
			return o.Package == d.Package && o.Repo == d.Repo && o.Version == d.Version
		}) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func (v *pkgView) warn(h resourcelist.Header, field, format string, args ...any) {
	v.warns = append(v.warns, h.Attach(result.Warningf(format, args...).WithField(field)).WithFile(h.Path, 0))
}

// capabilities are the Hub-style capabilities the Kptfiles of the package
// tree name (kptkit.dev/provides, kptkit.dev/requires, comma-separated):
// what the tree provides, and what it requires that it does not provide
// itself.
func (v *pkgView) capabilities(rl *resourcelist.ResourceList) (provides, requires []string) {
	for _, it := range rl.Select(resourcelist.Header.IsKptfile) {
		a := it.Header().Annotations
		provides = append(provides, splitList(a[AnnotationProvides])...)
		requires = append(requires, splitList(a[AnnotationRequires])...)
	}
	slices.Sort(provides)
	provides = slices.Compact(provides)
	requires = slices.DeleteFunc(requires, func(c string) bool { return slices.Contains(provides, c) })
	slices.Sort(requires)
	return provides, slices.Compact(requires)
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// parameters are the parameters the package's own Parameters items
// declare (not its subpackages'), in order.
func (v *pkgView) parameters(rl *resourcelist.ResourceList) ([]v1alpha1.Parameter, *bad) {
	var out []v1alpha1.Parameter
	for _, it := range rl.Select(func(h resourcelist.Header) bool {
		return h.Is(v1alpha1.APIVersion, v1alpha1.KindParameters) && !h.InCluster()
	}) {
		if !v.own[it.Node()] {
			continue
		}
		h := it.Header()
		var spec v1alpha1.ParametersSpec
		errs := []decode.Error{}
		if n := fieldpath.Lookup(it.Node(), fieldpath.Path{"spec"}); n != nil {
			errs = decode.Into(n.YNode(), &spec, decode.Options{KnownFields: true}, "spec")
		}
		errs = append(errs, spec.Validate("spec.parameters")...)
		if len(errs) > 0 {
			return nil, &bad{file: h.Path, msg: fmt.Sprintf("%s: %s", h, errs[0])}
		}
		out = append(out, spec.Parameters...)
	}
	return out, nil
}
