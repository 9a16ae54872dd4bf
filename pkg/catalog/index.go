package catalog

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

// FolderVersion is the version a package read from a folder (not from git
// tags) gets: a folder holds one version of each package.
const FolderVersion = "v1"

// Release is one version of one package: the package (its path below the
// repository's root or directory), the version as its tag writes it, and
// the repository's tree at that version.
type Release struct {
	Package string
	Version string
	Tree    *Tree
}

// Repo is a catalog repository to index: its name (the Porch Repository
// name PackageVariants use), its releases, and for each package the version
// the branch head matches (its latestVersion).
type Repo struct {
	Name     string
	Releases []Release
	Latest   map[string]string
}

// Index returns the CatalogPackages of a repository, sorted by name, each
// with its versions highest first, and warnings for the versions it could
// not read (skipped). A version found in previous with the same commit (git)
// or digest (folder) is taken from there without reading it again.
func Index(repo Repo, previous []v1alpha1.CatalogPackage) ([]v1alpha1.CatalogPackage, []result.Result) {
	prev := map[[3]string]v1alpha1.CatalogVersion{}
	for _, p := range previous {
		if p.Spec.Repo != repo.Name {
			continue
		}
		for _, v := range p.Spec.Versions {
			prev[[3]string{p.Metadata.Name, v.Version, v.Commit + v.Digest}] = v
		}
	}
	byPkg := map[string]*v1alpha1.CatalogPackage{}
	var rs []result.Result
	for _, rel := range repo.Releases {
		cv, bad := indexRelease(repo.Name, rel, prev)
		rs = append(rs, bad...)
		if cv == nil {
			continue
		}
		p := byPkg[rel.Package]
		if p == nil {
			p = &v1alpha1.CatalogPackage{TypeMeta: v1alpha1.TypeCatalogPackage, Metadata: v1alpha1.ObjectMeta{
				Name: rel.Package, Annotations: map[string]string{v1alpha1.AnnotationInCluster: "true"}},
				Spec: v1alpha1.CatalogPackageSpec{Repo: repo.Name}}
			byPkg[rel.Package] = p
		}
		p.Spec.Versions = append(p.Spec.Versions, *cv)
	}
	out := make([]v1alpha1.CatalogPackage, 0, len(byPkg))
	for _, name := range slices.Sorted(maps.Keys(byPkg)) {
		p := byPkg[name]
		slices.SortStableFunc(p.Spec.Versions, func(a, b v1alpha1.CatalogVersion) int { return compareVersions(b.Version, a.Version) })
		if latest := repo.Latest[name]; latest != "" && slices.ContainsFunc(p.Spec.Versions, func(v v1alpha1.CatalogVersion) bool { return v.Version == latest }) {
			p.Spec.LatestVersion = latest
		}
		out = append(out, *p)
	}
	return out, rs
}

// indexRelease reads one version of a package, or takes it from the
// previous index; nil (and a warning) when it cannot be read.
func indexRelease(repo string, rel Release, prev map[[3]string]v1alpha1.CatalogVersion) (*v1alpha1.CatalogVersion, []result.Result) {
	skip := func(file, format string, args ...any) []result.Result {
		msg := fmt.Sprintf(format, args...)
		if file != "" {
			msg = file + ": " + msg
		}
		r := result.Warningf("repository %s: package %s %s is skipped: %s", repo, pkgName(rel.Package), rel.Version, msg)
		if file != "" {
			r = r.WithFile(file, 0)
		}
		return []result.Result{r}
	}
	if rel.Tree.Commit != "" {
		if cv, ok := prev[[3]string{rel.Package, rel.Version, rel.Tree.Commit}]; ok {
			return &cv, nil
		}
	}
	files, err := rel.Tree.files()
	if err != nil {
		return nil, skip("", "%v", err)
	}
	if _, ok := files[joinPath(rel.Package, "Kptfile")]; !ok {
		return nil, skip("", "its folder holds no Kptfile at this version")
	}
	source := v1alpha1.CatalogVersion{Version: rel.Version, Commit: rel.Tree.Commit}
	if source.Commit == "" {
		source.Digest = digest(rel.Tree.filesLayout().Sub(rel.Package))
		if cv, ok := prev[[3]string{rel.Package, rel.Version, source.Digest}]; ok {
			return &cv, nil
		}
	}
	p, bad := rel.Tree.pkg(rel.Package)
	if bad != nil {
		return nil, skip(bad.file, "%s", bad.msg)
	}
	cv, b := p.version(source)
	if b != nil {
		return nil, skip(b.file, "%s", b.msg)
	}
	var rs []result.Result
	for _, w := range p.warns {
		w.Message = fmt.Sprintf("repository %s: package %s %s: %s", repo, pkgName(rel.Package), rel.Version, w.Message)
		rs = append(rs, w)
	}
	return &cv, rs
}

func pkgName(p string) string {
	if p == "" {
		return "(the repository's root)"
	}
	return p
}

// compareVersions orders versions by semver, those that are not semver
// last, by text.
func compareVersions(a, b string) int {
	va, ea := deps.ParseVersion(a)
	vb, eb := deps.ParseVersion(b)
	switch {
	case ea == nil && eb == nil:
		if c := va.Compare(vb); c != 0 {
			return c
		}
	case ea == nil:
		return 1
	case eb == nil:
		return -1
	}
	return cmp.Compare(a, b)
}

func joinPath(dir, p string) string {
	if dir == "" {
		return p
	}
	return dir + "/" + p
}

// relTo returns p relative to the package folder dir.
func relTo(p, dir string) string {
	if dir == "" {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

// FolderRepo is a catalog repository read from a folder: every package in
// it, at FolderVersion, which is also its latest.
func FolderRepo(name string, files kptpkg.Files) Repo {
	tree := FolderTree(files)
	repo := Repo{Name: name, Latest: map[string]string{}}
	for _, p := range files.Packages() {
		repo.Releases = append(repo.Releases, Release{Package: p, Version: FolderVersion, Tree: tree})
		repo.Latest[p] = FolderVersion
	}
	return repo
}
