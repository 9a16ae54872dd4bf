package catalog

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

// Deployment is a deployment repository: its name, the cluster its
// packages are installed in, and its files.
type Deployment struct {
	Name    string
	Cluster string
	Files   kptpkg.Files
}

// Source is a catalog repository as upstreams name it: its Porch name, its
// git repository (a URL or path, as Kptfiles write it) and its directory.
type Source struct {
	Name, Repo, Dir string
}

// Tags returns the tags of a git repository (tag → commit), for telling
// which version a commit or a branch is.
type Tags func(repo string) (map[string]string, error)

// Installed returns an InstalledPackage for each package folder of a
// deployment repository whose Kptfile has an upstream (as `kpt pkg get` and
// `kptkit variants render` write it), sorted by folder: the package is the
// upstream's directory below the catalog repository's (sources), the
// version what the locked ref says: a tag `<dir>/vN` or `<dir>/v1.2.3` is
// that version; a commit is the version whose tag points at it; a branch is
// the latest version, with a warning. Folders it cannot tell are warnings.
func Installed(d Deployment, sources []Source, tags Tags) ([]v1alpha1.InstalledPackage, []result.Result) {
	var (
		out []v1alpha1.InstalledPackage
		rs  []result.Result
	)
	for _, dir := range d.Files.Packages() {
		file := joinPath(dir, kptapi.FileName)
		up, err := upstreamOf(file, d.Files[file])
		if err != nil {
			rs = append(rs, result.Warningf("%s: %s: cannot read its upstream: %v", d.Name, file, err).WithFile(file, 0))
			continue
		}
		lock := &kptapi.GitLock{}
		if up.Lock != nil && up.Lock.Git != nil {
			lock = up.Lock.Git
		}
		repo, directory, ref := lock.Repo, lock.Directory, lock.Ref
		if up.Upstream != nil && up.Upstream.Git != nil && repo == "" {
			g := up.Upstream.Git
			repo, directory, ref = g.Repo, g.Directory, g.Ref
		}
		if repo == "" {
			continue // not cloned from an upstream: nothing installed from a catalog
		}
		pkg := packageOf(repo, directory, sources)
		version, why, warn := versionOf(repo, strings.Trim(path.Clean("/"+directory), "/"), ref, lock.Commit, tags)
		where := fmt.Sprintf("%s: %s", d.Name, file)
		switch {
		case version == "":
			rs = append(rs, result.Warningf("%s: cannot tell which version of %s it holds: %s", where, pkg, why).WithFile(file, 0))
			continue
		case warn:
			rs = append(rs, result.Warningf("%s: %s", where, why).WithFile(file, 0))
		}
		out = append(out, v1alpha1.InstalledPackage{
			TypeMeta: v1alpha1.TypeInstalledPackage,
			Metadata: v1alpha1.ObjectMeta{Name: installedName(d.Cluster, d.Name, dir), Annotations: map[string]string{v1alpha1.AnnotationInCluster: "true"}},
			Spec:     v1alpha1.InstalledPackageSpec{Cluster: d.Cluster, Package: pkg, Version: version},
		})
	}
	return out, rs
}

// upstreamOf reads what the Kptfile at file says its package was cloned
// from, whatever the Kptfile's type.
func upstreamOf(file string, b []byte) (kptfile.Lineage, error) {
	kf, err := kptfile.Parse(file, b)
	if err != nil {
		return kptfile.Lineage{}, err
	}
	return kptfile.LineageOf(kf)
}

// installedName names an InstalledPackage: `<cluster>.<folder>`, the
// folder's slashes made dots.
func installedName(cluster, repo, dir string) string {
	name := strings.ReplaceAll(dir, "/", ".")
	if name == "" {
		name = path.Base(repo)
	}
	return strings.ToLower(cluster + "." + name)
}

// packageOf names the catalog package an upstream is: its directory below
// the directory of the catalog repository it comes from, or, when no
// source matches, its whole directory.
func packageOf(repo, directory string, sources []Source) string {
	dir := strings.Trim(path.Clean("/"+directory), "/")
	best := -1
	for i, s := range sources {
		sdir := strings.Trim(path.Clean("/"+s.Dir), "/")
		if sameRepo(s.Repo, repo) && (sdir == "" || kptpkg.Inside(dir, sdir) && dir != sdir) && (best < 0 || len(sdir) > len(sources[best].Dir)) {
			best = i
		}
	}
	if best < 0 {
		return dir
	}
	return relTo(dir, strings.Trim(path.Clean("/"+sources[best].Dir), "/"))
}

// sameRepo compares repositories as written: with or without file://, a
// trailing slash or .git.
func sameRepo(a, b string) bool {
	norm := func(s string) string {
		s = strings.TrimPrefix(s, "file://")
		return strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	}
	return norm(a) == norm(b)
}

// versionOf tells the version a locked ref names: a version tag of the
// package (`<dir>/vN`, or `vN`), a commit a version tag points at, or a
// branch (the latest version, with a warning).
func versionOf(repo, dir, ref, commit string, tags Tags) (version, why string, warn bool) {
	if v, ok := versionTag(ref, dir); ok {
		return v, "", false
	}
	if v, ok := versionTag(ref, ""); ok { // the short form: kpt reads v2 as <dir>/v2
		return v, "", false
	}
	if ref == "" {
		ref = commit
	}
	if tags == nil {
		tags = func(string) (map[string]string, error) { return nil, fmt.Errorf("no git repository given") }
	}
	all, err := tags(repo)
	if err != nil {
		return "", fmt.Sprintf("ref %q is not a version tag, and the tags of %s cannot be read: %v", ref, repo, err), false
	}
	versions := map[string]string{} // version → commit
	for tag, c := range all {
		if v, ok := versionTag(tag, dir); ok {
			versions[v] = c
		}
	}
	if isCommit(ref) {
		var at []string
		for v, c := range versions {
			if strings.HasPrefix(c, ref) || strings.HasPrefix(ref, c) {
				at = append(at, v)
			}
		}
		if len(at) == 0 {
			return "", fmt.Sprintf("commit %s is no version of it (no tag %s/vN points at it)", ref, dir), false
		}
		return highest(at), "", false
	}
	if len(versions) == 0 {
		return "", fmt.Sprintf("ref %q is a branch and %s has no version tag %s/vN", ref, repo, dir), false
	}
	latest := highest(slices.Collect(maps.Keys(versions)))
	return latest, fmt.Sprintf("ref %q is a branch: taken as the latest version, %s (lock a version tag to be exact)", ref, latest), true
}

// ReleaseTag reads a tag DIR/P/vN or DIR/P/v1.2.3 of a catalog repository
// whose packages lie below dir as version vN of package P ("" for the
// package at dir itself).
func ReleaseTag(tag, dir string) (pkg, version string, ok bool) {
	if dir != "" {
		if tag, ok = strings.CutPrefix(tag, dir+"/"); !ok {
			return "", "", false
		}
	}
	i := strings.LastIndex(tag, "/")
	if version, ok = versionTag(tag[i+1:], ""); !ok {
		return "", "", false
	}
	return tag[:max(i, 0)], version, true
}

// versionTag reads `<dir>/vN` or `<dir>/v1.2.3` (or, for the repository's
// root, `vN`) as a version.
func versionTag(tag, dir string) (string, bool) {
	v := tag
	if dir != "" {
		rest, ok := strings.CutPrefix(tag, dir+"/")
		if !ok {
			return "", false
		}
		v = rest
	}
	if !strings.HasPrefix(v, "v") || strings.Contains(v, "/") {
		return "", false
	}
	if _, err := deps.ParseVersion(v); err != nil {
		return "", false
	}
	return v, true
}

func isCommit(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

func highest(vs []string) string {
	slices.SortFunc(vs, func(a, b string) int { return compareVersions(b, a) })
	return vs[0]
}
