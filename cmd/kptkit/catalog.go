package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/catalog"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

var catalogCommand = &command{
	name:    "catalog",
	summary: "index catalog repositories into CatalogPackages, deployment repositories into InstalledPackages (catalog --help)",
	help: `The inputs of resolve-deps, read from repositories instead of written by
hand: the catalog's packages and their versions, and what the deployment
repositories hold.`,
	subs: []*command{
		{name: "index", synopsis: "--repo NAME=PATH[//DIR] [--repo ...] [-o FILE] [--previous FILE] [--repo-map URL=PATH]",
			help: `write one CatalogPackage per package of each catalog repository (every
folder holding a Kptfile, named by its path below the repository's root
or DIR; subpackages too) for resolve-deps: the APIs it provides (CRDs,
APIServices) and uses (its items' kinds, its RBAC rules), its
dependencies (the PackageVariants it holds), its capabilities (Kptfile
annotations kptkit.dev/provides and kptkit.dev/requires) and its
parameters (Parameters items). NAME is the Porch Repository name
PackageVariants use. PATH is a git repository (a path, a file:// URL, or
a URL mapped with --repo-map): tags DIR/P/vN and DIR/P/v1.2.3 are the
versions of package P, and the head of main is its latestVersion when
P's files there are those of a version; or a folder, which holds
version v1 of each package. With --previous, versions whose commit (or,
for a folder, files) did not change are taken from that index.`,
			run: catalogIndex},
		{name: "installed", synopsis: "--repo [NAME=]PATH [--repo ...] [--cluster NAME=CLUSTER] [--catalog NAME=URL[//DIR]] [--repo-map URL=PATH] [-o FILE]",
			help: `write one InstalledPackage per package of each deployment repository
(a folder, as kptkit variants render writes them) that was cloned from
an upstream: its Kptfile's upstreamLock says which version (a tag
DIR/P/vN, a commit a version tag points at, or a branch: the latest,
with a warning). The cluster is the repository's name unless --cluster
maps it; --catalog names the catalog repositories upstreams come from,
so that packages are named as the index names them.`,
			run: catalogInstalled},
	},
}

// listFlag collects a flag given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// repoSpec is a --repo NAME=PATH[//DIR] of catalog index.
type repoSpec struct{ name, path, dir string }

// parseRepo reads NAME=PATH[//DIR]; the `//` of a URL's scheme is not a
// directory separator.
func parseRepo(s string) (repoSpec, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" || rest == "" {
		return repoSpec{}, usageError{fmt.Errorf("--repo %q: want NAME=PATH[//DIR]", s)}
	}
	r := repoSpec{name: name, path: rest}
	from := 0
	if i := strings.Index(rest, "://"); i >= 0 {
		from = i + 3
	}
	if i := strings.LastIndex(rest[from:], "//"); i >= 0 {
		r.path, r.dir = rest[:from+i], strings.Trim(rest[from+i+2:], "/")
		if err := kptpkg.CheckPath("--repo directory", r.dir); err != nil && r.dir != "" {
			return repoSpec{}, usageError{err}
		}
	}
	return r, nil
}

func catalogIndex(c *call, args []string) error {
	fs := c.flags()
	var repos listFlag
	repoMap := newPairFlag("URL=PATH")
	fs.Var(&repos, "repo", "a catalog repository, `NAME=PATH[//DIR]` (repeat)")
	fs.Var(repoMap, "repo-map", "read a remote git URL from a local clone, `URL=PATH` (repeat)")
	out := fs.String("o", "", "write the index to the file `FILE` (default: stdout)")
	previous := fs.String("previous", "", "an earlier index, `FILE`: unchanged versions are taken from it")
	if err := c.parse(fs, args, 0); err != nil {
		return err
	}
	if len(repos) == 0 {
		return usageErrorf("--repo is required")
	}
	mapped := repoMap.m
	var prev []v1alpha1.CatalogPackage
	if *previous != "" {
		var err error
		if prev, err = readIndex(*previous); err != nil {
			return err
		}
	}
	var (
		all []v1alpha1.CatalogPackage
		rs  result.List
	)
	for _, s := range repos {
		spec, err := parseRepo(s)
		if err != nil {
			return err
		}
		repo, err := openCatalog(spec, mapped)
		if err != nil {
			return err
		}
		pkgs, more := catalog.Index(repo, prev)
		all, rs = append(all, pkgs...), append(rs, more...)
	}
	return emit(all, *out, rs, c.stdout, c.stderr)
}

// openCatalog reads a catalog repository: git when PATH is one (its
// version tags and the head of main), else a folder.
func openCatalog(spec repoSpec, mapped map[string]string) (catalog.Repo, error) {
	local, err := gitrepo.Local(spec.path, mapped)
	if err != nil {
		return catalog.Repo{}, err
	}
	if g, err := gitrepo.Open(spec.path, local); err == nil {
		repo, err := upstream.Releases(spec.name, spec.dir, g)
		if err != nil {
			return catalog.Repo{}, fmt.Errorf("--repo %s: %w", spec.name, err)
		}
		return repo, nil
	}
	if strings.Contains(spec.path, "://") {
		return catalog.Repo{}, fmt.Errorf("--repo %s: %s is not a git repository", spec.name, spec.path)
	}
	files, err := pkgfs.Read(filepath.Join(local, filepath.FromSlash(spec.dir)))
	if err != nil {
		return catalog.Repo{}, fmt.Errorf("--repo %s: %w", spec.name, err)
	}
	return catalog.FolderRepo(spec.name, files), nil
}

// readIndex reads the CatalogPackages of an index file.
func readIndex(file string) ([]v1alpha1.CatalogPackage, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	nodes, err := kptpkg.ReadDocuments(&kio.ByteReader{OmitReaderAnnotations: true}, b)
	if err != nil {
		return nil, fmt.Errorf("--previous %s: %w", file, err)
	}
	var out []v1alpha1.CatalogPackage
	for _, n := range nodes {
		if n.GetKind() != v1alpha1.KindCatalogPackage || n.GetApiVersion() != v1alpha1.APIVersion {
			continue
		}
		var p v1alpha1.CatalogPackage
		if errs := decode.Into(n.YNode(), &p, decode.Options{}, ""); len(errs) > 0 {
			return nil, fmt.Errorf("--previous %s: CatalogPackage/%s: %v", file, n.GetName(), errs[0])
		}
		out = append(out, p)
	}
	return out, nil
}

// encodeAll writes objects as one YAML stream.
func encodeAll[T any](objs []T) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// emit writes objects as one YAML stream to file (stdout when "") and
// the warnings and errors to stderr; the exit code is 1 when there is an
// error.
func emit[T any](objs []T, file string, rs result.List, stdout, stderr io.Writer) error {
	b, err := encodeAll(objs)
	if err != nil {
		return err
	}
	if err := writeOutput(file, b, stdout); err != nil {
		return err
	}
	for _, r := range rs {
		if r.Severity != result.SeverityInfo {
			fmt.Fprintln(stderr, r.String())
		}
	}
	if rs.HasError() {
		return exitCode(1)
	}
	return nil
}

func catalogInstalled(c *call, args []string) error {
	fs := c.flags()
	var repos, catalogs listFlag
	clusters, repoMap := newPairFlag("NAME=CLUSTER"), newPairFlag("URL=PATH")
	fs.Var(&repos, "repo", "a deployment repository, `[NAME=]PATH`, a folder (repeat)")
	fs.Var(clusters, "cluster", "the cluster of a deployment repository, `NAME=CLUSTER` (repeat; default: its name)")
	fs.Var(&catalogs, "catalog", "a catalog repository upstreams come from, `NAME=URL[//DIR]` (repeat)")
	fs.Var(repoMap, "repo-map", "read a remote git URL from a local clone, `URL=PATH` (repeat)")
	out := fs.String("o", "", "write the InstalledPackages to the file `FILE` (default: stdout)")
	if err := c.parse(fs, args, 0); err != nil {
		return err
	}
	if len(repos) == 0 {
		return usageErrorf("--repo is required")
	}
	clusterOf, mapped := clusters.m, repoMap.m
	var sources []catalog.Source
	for _, c := range catalogs {
		spec, err := parseRepo(c)
		if err != nil {
			return err
		}
		sources = append(sources, catalog.Source{Name: spec.name, Repo: spec.path, Dir: spec.dir})
	}
	tags := gitTags(mapped)
	var (
		all []v1alpha1.InstalledPackage
		rs  result.List
	)
	for _, r := range repos {
		name, path, ok := strings.Cut(r, "=")
		if !ok {
			name, path = filepath.Base(filepath.Clean(r)), r
		}
		files, err := pkgfs.Read(path)
		if err != nil {
			return fmt.Errorf("--repo %s: %w", r, err)
		}
		cluster := cmp.Or(clusterOf[name], name)
		pkgs, more := catalog.Installed(catalog.Deployment{Name: name, Cluster: cluster, Files: files}, sources, tags)
		all, rs = append(all, pkgs...), append(rs, more...)
	}
	return emit(all, *out, rs, c.stdout, c.stderr)
}

// gitTags reads (once each) the tags of the git repositories upstreams
// name.
func gitTags(mapped map[string]string) catalog.Tags {
	type read struct {
		tags map[string]string
		err  error
	}
	cache := map[string]read{}
	return func(url string) (map[string]string, error) {
		r, ok := cache[url]
		if !ok {
			r.tags, r.err = readTags(url, mapped)
			cache[url] = r
		}
		return r.tags, r.err
	}
}

// readTags reads the tags of the git repository at url (tag → commit).
func readTags(url string, mapped map[string]string) (map[string]string, error) {
	local, err := gitrepo.Local(url, mapped)
	if err != nil {
		return nil, err
	}
	g, err := gitrepo.Open(url, local)
	if err != nil {
		return nil, err
	}
	tags, _, err := g.Refs()
	return tags, err
}
