package upstream

import (
	"maps"
	"slices"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/pkg/catalog"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Releases reads a git catalog repository, named name, whose packages lie
// below dir, for catalog.Index: each version tag DIR/P/vN or DIR/P/v1.2.3
// (catalog.ReleaseTag) is version vN of package P, read at its commit
// (each commit read once, and only when the index needs it); P's latest
// version is the highest whose files are P's files at the head of main
// (none without a main branch).
func Releases(name, dir string, g *gitrepo.Repo) (catalog.Repo, error) {
	tags, branches, err := g.Refs()
	if err != nil {
		return catalog.Repo{}, err
	}
	repo := catalog.Repo{Name: name, Latest: map[string]string{}}
	trees := map[string]*catalog.Tree{}
	for _, tag := range slices.Sorted(maps.Keys(tags)) {
		pkg, version, ok := catalog.ReleaseTag(tag, dir)
		if !ok {
			continue
		}
		commit := tags[tag]
		if trees[commit] == nil {
			trees[commit] = catalog.NewTree(commit, func() (kptpkg.Files, error) { return g.Files(commit, dir) })
		}
		repo.Releases = append(repo.Releases, catalog.Release{Package: pkg, Version: version, Tree: trees[commit]})
	}
	if head, ok := branches["main"]; ok {
		latest(&repo, dir, head, g)
	}
	return repo, nil
}

// latest sets each package's latest version: the highest release whose
// package folder has, at its commit, the tree it has at head.
func latest(repo *catalog.Repo, dir, head string, g *gitrepo.Repo) {
	for _, rel := range repo.Releases {
		at := joinDir(dir, rel.Package)
		h1, err1 := g.TreeHash(head, at)
		h2, err2 := g.TreeHash(rel.Tree.Commit, at)
		if err1 == nil && err2 == nil && h1 == h2 && higher(rel.Version, repo.Latest[rel.Package]) {
			repo.Latest[rel.Package] = rel.Version
		}
	}
}

// joinDir joins a package's path to the folder the packages lie below.
func joinDir(dir, p string) string {
	switch {
	case dir == "":
		return p
	case p == "":
		return dir
	}
	return dir + "/" + p
}

// higher reports whether version v is higher than than ("": none yet).
func higher(v, than string) bool {
	if than == "" {
		return true
	}
	a, err1 := deps.ParseVersion(v)
	b, err2 := deps.ParseVersion(than)
	return err1 == nil && err2 == nil && a.GreaterThan(b)
}
