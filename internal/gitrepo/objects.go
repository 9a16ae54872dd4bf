package gitrepo

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// Revisions returns the repository's objects as the package revision model
// reads them (refs, packages in trees, commits, history).
func (g *Repo) Revisions() pkgrev.Objects { return revObjects{g} }

// revObjects is a Repo seen as pkgrev.Objects.
type revObjects struct{ g *Repo }

var _ pkgrev.Objects = revObjects{}

// PorchRefs returns the refs Porch keeps package revisions in: every branch
// (refs/heads/) and tag (refs/tags/), with the object each names and the
// commit, through annotated tags. refs/remotes/ and other refs are left out.
func (g *Repo) PorchRefs() ([]pkgrev.Ref, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.plainDir() {
		if plain, err := plainRefs(g.GitDir()); err == nil {
			return g.porchRefs(plain), nil
		}
	}
	return g.goGitRefs()
}

// goGitRefs is PorchRefs through go-git's reading of refs. The caller
// holds g.mu.
func (g *Repo) goGitRefs() ([]pkgrev.Ref, error) {
	iter, err := g.r.References()
	if err != nil {
		return nil, fmt.Errorf("cannot read the refs of %s: %w", g.URL, err)
	}
	defer iter.Close()
	var refs []pkgrev.Ref
	err = iter.ForEach(func(r *plumbing.Reference) error {
		name := r.Name().String()
		if r.Type() != plumbing.HashReference || !strings.HasPrefix(name, pkgrev.HeadsPrefix) && !strings.HasPrefix(name, pkgrev.TagsPrefix) {
			return nil
		}
		ref := pkgrev.Ref{Name: name, Hash: r.Hash().String(), Commit: r.Hash().String()}
		if r.Name().IsTag() {
			ref.Commit = g.peelToCommit(r.Hash())
		}
		refs = append(refs, ref)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the refs of %s: %w", g.URL, err)
	}
	return refs, nil
}

// porchRefs lists refs read from the files (plainRefs) as PorchRefs
// does, by name. The caller holds g.mu.
func (g *Repo) porchRefs(plain map[string]string) []pkgrev.Ref {
	refs := make([]pkgrev.Ref, 0, len(plain))
	for _, name := range slices.Sorted(maps.Keys(plain)) {
		ref := pkgrev.Ref{Name: name, Hash: plain[name], Commit: plain[name]}
		if strings.HasPrefix(name, pkgrev.TagsPrefix) {
			ref.Commit = g.peelToCommit(plumbing.NewHash(ref.Hash))
		}
		refs = append(refs, ref)
	}
	return refs
}

// peelToCommit returns the commit an object names through annotated tags,
// "" when it names none. The caller holds g.mu.
func (g *Repo) peelToCommit(h plumbing.Hash) string {
	for range 10 {
		o, err := g.r.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return ""
		}
		switch o.Type() {
		case plumbing.CommitObject:
			return h.String()
		case plumbing.TagObject:
			t, err := object.DecodeTag(g.r.Storer, o)
			if err != nil {
				return ""
			}
			h = t.Target
		default:
			return ""
		}
	}
	return ""
}

// maxRoots is how many root trees a Repo keeps (rootTree).
const maxRoots = 16

// rootTree returns the root tree of a commit, kept for the next call (a
// snapshot reads a branch's tree, and the change made on that branch reads
// it again). The caller holds g.mu.
func (g *Repo) rootTree(commit string) (*object.Tree, error) {
	if t, ok := g.roots[commit]; ok {
		return t, nil
	}
	t, err := g.readRootTree(commit)
	if err != nil {
		return nil, err
	}
	if g.roots == nil || len(g.roots) >= maxRoots {
		g.roots = map[string]*object.Tree{}
	}
	g.roots[commit] = t
	return t, nil
}

// readRootTree reads the root tree of a commit. The caller holds g.mu.
func (g *Repo) readRootTree(commit string) (*object.Tree, error) {
	if !plumbing.IsHash(commit) {
		return nil, fmt.Errorf("%q is not a commit hash", commit)
	}
	c, err := g.r.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("commit %s of %s: %w", short(commit), g.URL, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of commit %s of %s: %w", short(commit), g.URL, err)
	}
	return t, nil
}

// isPackage reports whether a tree holds a Kptfile (a file: Porch skips a
// Kptfile that is not one).
func isPackage(t *object.Tree) bool {
	for _, e := range t.Entries {
		if e.Name == kptfile.FileName && e.Mode.IsFile() {
			return true
		}
	}
	return false
}

// Package returns the tree of the folder at p in a commit and whether it
// holds a package.
func (o revObjects) Package(commit, p string) (string, bool, error) {
	g := o.g
	g.mu.Lock()
	defer g.mu.Unlock()
	root, err := g.rootTree(commit)
	if err != nil {
		return "", false, err
	}
	t, err := root.Tree(p)
	if errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("folder %q at commit %s of %s: %w", p, short(commit), g.URL, err)
	}
	return t.Hash.String(), isPackage(t), nil
}

// Packages returns the packages below dir at a commit, as Porch discovers
// them (discoverPackages): every folder with a Kptfile, not looking inside a
// package; a dir the commit lacks holds none.
func (o revObjects) Packages(commit, dir string) ([]pkgrev.Package, error) {
	g := o.g
	g.mu.Lock()
	defer g.mu.Unlock()
	t, err := g.rootTree(commit)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		t, err = t.Tree(dir)
		if errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("folder %q at commit %s of %s: %w", dir, short(commit), g.URL, err)
		}
	}
	var out []pkgrev.Package
	err = g.discover(t, dir, &out)
	return out, err
}

// discover adds the packages in a tree at path p. The caller holds g.mu.
func (g *Repo) discover(t *object.Tree, p string, out *[]pkgrev.Package) error {
	if isPackage(t) {
		*out = append(*out, pkgrev.Package{Path: p, Tree: t.Hash.String()})
		return nil
	}
	for _, e := range t.Entries {
		if e.Mode != filemode.Dir {
			continue
		}
		sub, err := g.r.TreeObject(e.Hash)
		if err != nil {
			return fmt.Errorf("tree %s of %s: %w", e.Hash, g.URL, err)
		}
		if err := g.discover(sub, path.Join(p, e.Name), out); err != nil {
			return err
		}
	}
	return nil
}

// Commit reads a commit.
func (o revObjects) Commit(hash string) (pkgrev.Commit, error) {
	g := o.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if !plumbing.IsHash(hash) {
		return pkgrev.Commit{}, fmt.Errorf("%q is not a commit hash", hash)
	}
	c, err := g.r.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return pkgrev.Commit{}, fmt.Errorf("commit %s of %s: %w", short(hash), g.URL, err)
	}
	return commitOf(c), nil
}

func commitOf(c *object.Commit) pkgrev.Commit {
	out := pkgrev.Commit{Hash: c.Hash.String(), Message: c.Message,
		Author: pkgrev.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When}}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	return out
}

// Log visits the commits reachable from a commit, newest by committer time
// first, until visit returns false.
func (o revObjects) Log(from string, visit func(pkgrev.Commit) bool) error {
	g := o.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if !plumbing.IsHash(from) {
		return fmt.Errorf("%q is not a commit hash", from)
	}
	iter, err := g.r.Log(&git.LogOptions{From: plumbing.NewHash(from), Order: git.LogOrderCommitterTime})
	if err != nil {
		return fmt.Errorf("cannot read the history of %s in %s: %w", short(from), g.URL, err)
	}
	defer iter.Close()
	err = iter.ForEach(func(c *object.Commit) error {
		if !visit(commitOf(c)) {
			return storer.ErrStop
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot read the history of %s in %s: %w", short(from), g.URL, err)
	}
	return nil
}
