package deps

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// isType reports whether an item has the apiVersion and kind of t.
func isType(h resourcelist.Header, t v1alpha1.TypeMeta) bool { return h.Is(t.APIVersion, t.Kind) }

// ofType selects the items of the type t, wherever they appear.
func ofType(t v1alpha1.TypeMeta) func(resourcelist.Header) bool {
	return func(h resourcelist.Header) bool { return isType(h, t) }
}

// decodeSpec decodes an item's spec strictly (our own kinds), leaving the
// metadata and status that clusters add alone. Problems name the file and
// the item.
func decodeSpec(it *resourcelist.Item, out any) []result.Result {
	h := it.Header()
	spec := fieldpath.Lookup(it.Node(), fieldpath.Path{"spec"})
	if yaml.IsMissingOrNull(spec) {
		return nil
	}
	var rs []result.Result
	for _, e := range decode.Into(spec.YNode(), out, decode.Options{KnownFields: true}, "spec") {
		rs = append(rs, it.Errorf(e.Path, "%s: %s: %s", h.Where(), h, e))
	}
	return rs
}

// ReadCatalog reads every CatalogPackage: versions parsed and sorted, ranges
// checked. A bad version, a bad range, a version listed twice and two
// CatalogPackages of one package from one repository are errors.
func ReadCatalog(rl *resourcelist.ResourceList, ranges *Ranges) (*Catalog, []result.Result) {
	var (
		pkgs []*Package
		rs   []result.Result
		seen = map[[2]string]resourcelist.Header{}
	)
	for _, it := range rl.Select(ofType(v1alpha1.TypeCatalogPackage)) {
		h := it.Header()
		if h.Name == "" {
			rs = append(rs, it.Errorf("metadata.name", "%s: %s: metadata.name is required: it names the package", h.Where(), h))
			continue
		}
		var spec v1alpha1.CatalogPackageSpec
		if bad := decodeSpec(it, &spec); len(bad) > 0 {
			rs = append(rs, bad...)
			continue
		}
		key := [2]string{h.Name, spec.Repo}
		if first, dup := seen[key]; dup {
			rs = append(rs, it.Errorf("metadata.name", "%s: %s: duplicate CatalogPackage: package %q of repository %q is also offered by %s in %s",
				h.Where(), h, h.Name, spec.Repo, first, first.Where()))
			continue
		}
		seen[key] = h
		p, bad := readPackage(it, spec, ranges)
		rs = append(rs, bad...)
		pkgs = append(pkgs, p)
	}
	return NewCatalog(pkgs...), rs
}

func readPackage(it *resourcelist.Item, spec v1alpha1.CatalogPackageSpec, ranges *Ranges) (*Package, []result.Result) {
	h := it.Header()
	p := &Package{Name: h.Name, Repo: spec.Repo}
	var rs []result.Result
	for i, cv := range spec.Versions {
		field := fmt.Sprintf("spec.versions[%d]", i)
		v, err := ParseVersion(cv.Version)
		if err != nil {
			rs = append(rs, it.Errorf(field+".version", "%s: %s: %s.version: %v", h.Where(), h, field, err))
			continue
		}
		if dup := p.Version(v); dup != nil {
			rs = append(rs, it.Errorf(field+".version", "%s: %s: %s.version: version %s is listed twice (as %q and %q)", h.Where(), h, field, v, dup.Raw, cv.Version))
			continue
		}
		rs = append(rs, checkDeps(it, field+".dependencies", cv.Dependencies, ranges)...)
		rs = append(rs, checkAPIs(it, field+".requires.apis", cv.Requires.APIs)...)
		for _, e := range (v1alpha1.ParametersSpec{Parameters: cv.Parameters}).Validate(field + ".parameters") {
			rs = append(rs, it.Errorf(e.Path, "%s: %s: %s", h.Where(), h, e))
		}
		p.Vers = append(p.Vers, &Version{Raw: cv.Version, SemVer: v, Deps: cv.Dependencies,
			APIs: cv.Provides.APIs, Provides: cv.Provides.Capabilities, Requires: cv.Requires.Capabilities,
			ReqAPIs: cv.Requires.APIs, Params: cv.Parameters})
	}
	slices.SortStableFunc(p.Vers, func(a, b *Version) int { return b.SemVer.Compare(a.SemVer) })
	if spec.LatestVersion != "" {
		v, err := ParseVersion(spec.LatestVersion)
		if err != nil {
			rs = append(rs, it.Errorf("spec.latestVersion", "%s: %s: spec.latestVersion: %v", h.Where(), h, err))
		} else if latest := p.Version(v); latest == nil {
			rs = append(rs, it.Warningf("spec.latestVersion", "%s: %s: spec.latestVersion %s is not one of its versions: ignored", h.Where(), h, spec.LatestVersion))
		} else {
			p.Latest = latest.Raw
		}
	}
	return p, rs
}

// checkDeps refuses dependencies without a package and invalid ranges,
// naming the package and the range.
func checkDeps(it *resourcelist.Item, field string, deps []v1alpha1.Dependency, ranges *Ranges) []result.Result {
	h := it.Header()
	var rs []result.Result
	for j, d := range deps {
		f := fmt.Sprintf("%s[%d]", field, j)
		if strings.TrimSpace(d.Package) == "" {
			rs = append(rs, it.Errorf(f+".package", "%s: %s: %s.package is required", h.Where(), h, f))
			continue
		}
		if _, err := ranges.Parse(d.Version); err != nil {
			rs = append(rs, it.Errorf(f+".version", "%s: %s: %s.version: %s", h.Where(), h, f, rangeProblem(err, d.Package)))
		}
	}
	return rs
}

// checkAPIs refuses required APIs that name neither a kind nor a
// resource.
func checkAPIs(it *resourcelist.Item, field string, apis []v1alpha1.RequiredAPI) []result.Result {
	h := it.Header()
	var rs []result.Result
	for j, a := range apis {
		if a.Kind == "" && a.Resource == "" {
			f := fmt.Sprintf("%s[%d]", field, j)
			rs = append(rs, it.Errorf(f, "%s: %s: %s names no kind and no resource of group %q", h.Where(), h, f, a.Group))
		}
	}
	return rs
}

// ReadInstalled reads the inventory: the InstalledPackages of the cluster
// (every cluster when cluster is ""). One package installed at two versions
// is an error (set cluster to tell them apart).
func ReadInstalled(rl *resourcelist.ResourceList, cluster string, ranges *Ranges) (map[string]*Installed, []result.Result) {
	out := map[string]*Installed{}
	var rs []result.Result
	for _, it := range rl.Select(ofType(v1alpha1.TypeInstalledPackage)) {
		h := it.Header()
		var spec v1alpha1.InstalledPackageSpec
		if bad := decodeSpec(it, &spec); len(bad) > 0 {
			rs = append(rs, bad...)
			continue
		}
		if cluster != "" && spec.Cluster != cluster {
			continue
		}
		in, bad := readInstalled(it, spec, ranges)
		if len(bad) > 0 {
			rs = append(rs, bad...)
			continue
		}
		prev, ok := out[in.Package]
		switch {
		case !ok:
			out[in.Package] = in
		case !prev.SemVer.Equal(in.SemVer):
			rs = append(rs, it.Errorf("spec.version", "%s: %s: package %s is installed at %s here and at %s by %s in %s: set cluster in the ResolveDeps to tell them apart",
				h.Where(), h, in.Package, in.Raw, prev.Raw, prev.Header, prev.Header.Where()))
		default:
			prev.Deps = append(prev.Deps, in.Deps...)
			prev.Outputs = append(prev.Outputs, in.Outputs...)
			prev.HasDeps = prev.HasDeps || in.HasDeps
			prev.AsDependency = prev.AsDependency && in.AsDependency
		}
	}
	return out, rs
}

func readInstalled(it *resourcelist.Item, spec v1alpha1.InstalledPackageSpec, ranges *Ranges) (*Installed, []result.Result) {
	h := it.Header()
	var rs []result.Result
	if strings.TrimSpace(spec.Package) == "" {
		rs = append(rs, it.Errorf("spec.package", "%s: %s: spec.package is required", h.Where(), h))
	}
	v, err := ParseVersion(spec.Version)
	if err != nil {
		rs = append(rs, it.Errorf("spec.version", "%s: %s: spec.version: %v", h.Where(), h, err))
	}
	rs = append(rs, checkDeps(it, "spec.dependencies", spec.Dependencies, ranges)...)
	hasDeps := fieldpath.Lookup(it.Node(), fieldpath.Path{"spec", "dependencies"}) != nil
	var status v1alpha1.InstalledPackageStatus
	if st := fieldpath.Lookup(it.Node(), fieldpath.Path{"status"}); !yaml.IsMissingOrNull(st) {
		for _, e := range decode.Into(st.YNode(), &status, decode.Options{KnownFields: true}, "status") {
			rs = append(rs, it.Errorf(e.Path, "%s: %s: %s", h.Where(), h, e))
		}
	}
	return &Installed{Package: spec.Package, Raw: spec.Version, SemVer: v, Deps: spec.Dependencies,
		HasDeps: hasDeps, AsDependency: spec.InstalledAsDependency, Outputs: status.Outputs, Header: h}, rs
}

// Install is a PackageInstall of the package.
type Install struct {
	Spec v1alpha1.PackageInstallSpec
	Item *resourcelist.Item
}

// ReadInstalls reads the package's PackageInstalls (in-cluster ones are
// not requests of the package and are left out).
func ReadInstalls(rl *resourcelist.ResourceList, ranges *Ranges) ([]Install, []result.Result) {
	var (
		out []Install
		rs  []result.Result
	)
	for _, it := range rl.Select(func(h resourcelist.Header) bool { return isType(h, v1alpha1.TypePackageInstall) && !h.InCluster() }) {
		h := it.Header()
		var pi v1alpha1.PackageInstall
		if bad := decodeSpec(it, &pi.Spec); len(bad) > 0 {
			rs = append(rs, bad...)
			continue
		}
		for _, e := range pi.Validate() {
			rs = append(rs, it.Errorf(e.Path, "%s: %s: %s", h.Where(), h, e))
		}
		if _, err := ranges.Parse(pi.Spec.Version); err != nil {
			rs = append(rs, it.Errorf("spec.version", "%s: %s: spec.version: %s", h.Where(), h, rangeProblem(err, pi.Spec.Package)))
		}
		out = append(out, Install{Spec: pi.Spec, Item: it})
	}
	return out, rs
}
