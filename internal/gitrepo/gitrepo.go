// Package gitrepo reads local git repositories in process with go-git (as
// Porch does), opening them by path — also bare ones, and file:// URLs — so
// that no git binary and no network is needed: a ref or commit goes in, the
// commit and the files of a folder at that commit come out. Remote URLs
// (https, ssh) are read from a local clone the caller maps them to.
package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Repo is an opened local git repository. Its methods are safe for
// concurrent use.
type Repo struct {
	URL  string // as the caller named it
	Path string // where it was opened
	mu   sync.Mutex
	r    *git.Repository
	// closer releases what OpenKeeping keeps open (open.go); nil otherwise.
	closer io.Closer
	// pending holds the objects of the change being written (pack.go); nil
	// when objects are written one by one.
	pending *batch
	// objects is what the object folder holds, read once for the writes
	// of a run (absent.go); nil until read, or after a write outside a
	// pack.
	objects *objectIndex
	// backendOnce reads once where and whether refs move in process
	// (backend.go).
	backendOnce sync.Once
	backendDir  string
	backendOK   bool
	plain       bool
	// gitDirOnce looks the git folder up once (GitDir).
	gitDirOnce sync.Once
	gitDir     string
	// roots keeps the root trees of the commits last read (rootTree).
	roots map[string]*object.Tree
}

// Local returns the local path of a repository named by url: a path, a
// file:// URL, or (through mapped, URL → local path) a remote URL. A remote
// URL that is not mapped is an error saying how to map it.
func Local(u string, mapped map[string]string) (string, error) {
	if p, ok := mappedTo(u, mapped); ok {
		return p, nil
	}
	switch {
	case strings.HasPrefix(u, "file://"):
		parsed, err := url.Parse(u)
		if err != nil {
			return "", fmt.Errorf("git repository %q: %w", u, err)
		}
		return parsed.Path, nil
	case strings.Contains(u, "://") || strings.HasPrefix(u, "git@"):
		return "", fmt.Errorf("git repository %q is not local: kptkit reads no network; map it to a local clone with --repo-map %s=PATH", u, u)
	}
	return u, nil
}

// LocalFor is Local for a repository a file names (a Repository object's
// spec.git.repo): a relative path is a path from the folder of that file,
// not from the working folder, so that the file means the same repository
// from wherever it is read. The repository stays named as written
// wherever it is recorded (a Kptfile's upstream, an upstream's key), so
// that what kptkit writes is the same on every machine. A file of "" (not
// known) reads it from the working folder, as Local does.
func LocalFor(u, file string, mapped map[string]string) (string, error) {
	local, err := Local(u, mapped)
	_, isMapped := mappedTo(u, mapped)
	if err != nil || isMapped || local != u || file == "" || filepath.IsAbs(local) {
		return local, err // a mapped, file:// or absolute repository, or no file to read from
	}
	return filepath.Join(filepath.Dir(file), filepath.FromSlash(local)), nil
}

// mappedTo returns the local path mapped (URL → local path) gives the
// repository u: a URL and its form with or without .git name one
// repository.
func mappedTo(u string, mapped map[string]string) (string, bool) {
	bare := strings.TrimSuffix(u, ".git")
	for k, p := range mapped {
		if strings.TrimSuffix(k, ".git") == bare {
			return p, true
		}
	}
	return "", false
}

// Open opens the repository at path (a working copy or a bare repository).
func Open(u, p string) (*Repo, error) {
	r, err := git.PlainOpenWithOptions(p, &git.PlainOpenOptions{DetectDotGit: false})
	if err != nil {
		return nil, fmt.Errorf("cannot open git repository %s: %w", p, err)
	}
	return &Repo{URL: u, Path: p, r: r}, nil
}

// ErrNotFound is returned for a ref the repository does not have.
var ErrNotFound = errors.New("not found")

// Resolve returns the commit a ref names: a tag, a branch (also as
// refs/remotes/origin/<branch> in a clone), a full ref name or a commit hash.
func (g *Repo) Resolve(ref string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	candidates := []plumbing.ReferenceName{
		plumbing.NewTagReferenceName(ref),
		plumbing.NewBranchReferenceName(ref),
		plumbing.NewRemoteReferenceName("origin", ref),
		plumbing.ReferenceName(ref),
	}
	for _, name := range candidates {
		r, err := g.r.Reference(name, true)
		if err != nil {
			continue
		}
		return g.peel(r.Hash())
	}
	if plumbing.IsHash(ref) {
		if _, err := g.r.CommitObject(plumbing.NewHash(ref)); err == nil {
			return ref, nil
		}
	}
	return "", fmt.Errorf("ref %q of %s: %w", ref, g.URL, ErrNotFound)
}

// peel returns the commit a hash names, through annotated tags.
func (g *Repo) peel(h plumbing.Hash) (string, error) {
	for range 10 {
		if t, err := g.r.TagObject(h); err == nil {
			h = t.Target
			continue
		}
		c, err := g.r.CommitObject(h)
		if err != nil {
			return "", fmt.Errorf("%s in %s is not a commit: %w", h, g.URL, err)
		}
		return c.Hash.String(), nil
	}
	return "", fmt.Errorf("%s in %s: tags nested too deep", h, g.URL)
}

// Refs lists the repository's tags and branches (short names; a clone's
// origin branches count as branches), each with the commit it names.
func (g *Repo) Refs() (tags, branches map[string]string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	tags, branches = map[string]string{}, map[string]string{}
	iter, err := g.r.References()
	if err != nil {
		return nil, nil, err
	}
	defer iter.Close()
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() != plumbing.HashReference {
			return nil
		}
		name := r.Name()
		var into map[string]string
		var short string
		switch {
		case name.IsTag():
			into, short = tags, name.Short()
		case name.IsBranch():
			into, short = branches, name.Short()
		case name.IsRemote() && strings.HasPrefix(name.String(), "refs/remotes/origin/"):
			into, short = branches, strings.TrimPrefix(name.String(), "refs/remotes/origin/")
			if _, ok := branches[short]; ok {
				return nil // the local branch wins
			}
		default:
			return nil
		}
		c, err := g.peel(r.Hash())
		if err != nil {
			return nil // a tag of a tree or blob names no package revision
		}
		into[short] = c
		return nil
	})
	return tags, branches, err
}

// Files returns the files below dir ("" for the whole tree) at a commit,
// with paths relative to dir. Every entry of the tree is checked as git
// checks a path it checks out (kptpkg.CheckPath, from the repository's
// root): a path git refuses (a nested .git, .GIT, git~1) fails the
// revision, naming it; so does a symbolic link, as in a folder, and a
// tree that names one entry twice or lacks an object. Submodules are left
// out.
func (g *Repo) Files(commit, dir string) (kptpkg.Files, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	tree, dir, err := g.tree(commit, dir)
	if err != nil {
		return nil, err
	}
	files := kptpkg.Files{}
	if err := g.walk(tree, dir, "", files); err != nil {
		return nil, fmt.Errorf("reading %q at commit %s of %s: %w", dir, short(commit), g.URL, err)
	}
	return files, nil
}

// walk adds the files of tree, the folder dir/rel of the repository, to
// files (paths relative to dir). A folder nested deeper below dir than
// kptkit reads a package is refused before it is read (kptpkg.CheckDepth,
// in kptpkg.Walk's words). The caller holds g.mu.
func (g *Repo) walk(tree *object.Tree, dir, rel string, files kptpkg.Files) error {
	if rel != "" {
		if err := kptpkg.CheckDepth(rel + "/"); err != nil {
			return err
		}
	}
	names := make(map[string]bool, len(tree.Entries))
	for _, e := range tree.Entries {
		if err := checkEntry(dir, rel, e.Name, names); err != nil {
			return err
		}
		p := join(rel, e.Name)
		var err error
		switch canonMode(e.Mode) {
		case filemode.Dir:
			var sub *object.Tree
			if sub, err = g.r.TreeObject(e.Hash); err != nil {
				err = fmt.Errorf("folder %q: %w", join(dir, p), err)
			} else {
				err = g.walk(sub, dir, p, files)
			}
		case filemode.Regular:
			files[p], err = g.readBlob(e.Hash)
		case filemode.Symlink:
			err = fmt.Errorf("%s %w", p, kptpkg.ErrSymlink)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// canonMode is the kind git checks a tree entry's mode out as (its
// canon_mode): a folder, a file, a symbolic link, or else a submodule.
func canonMode(m filemode.FileMode) filemode.FileMode {
	switch m & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	}
	return filemode.Submodule
}

// checkEntry checks the name of an entry of the folder dir/rel as git
// does: a name (not empty, no slash, as git's fsck wants), once in its
// tree, whose path from the repository's root git would check out, and
// whose path below dir kptkit can write.
func checkEntry(dir, rel, name string, names map[string]bool) error {
	folder := join(dir, rel)
	switch {
	case name == "" || strings.Contains(name, "/"):
		return fmt.Errorf("folder %q holds the tree entry %q: invalid path (a name must be neither empty nor hold a slash)", folder, name)
	case names[name]:
		return fmt.Errorf("folder %q holds the tree entry %q twice", folder, name)
	}
	names[name] = true
	if err := kptpkg.CheckPath("tree entry", join(folder, name)); err != nil {
		return err
	}
	return kptpkg.CheckPath("tree entry", join(rel, name)) // the path written
}

// join joins two slash paths as they are (path.Join would clean away the
// ".." a hostile tree names), "" being the root.
func join(dir, name string) string {
	switch {
	case dir == "":
		return name
	case name == "":
		return dir
	}
	return dir + "/" + name
}

// readBlob returns the bytes of a blob.
func (g *Repo) readBlob(h plumbing.Hash) ([]byte, error) {
	b, err := g.r.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// TreeHash returns the hash of the tree of a folder ("" for the whole
// tree) at a commit: two commits hold the same files below the folder
// exactly when the hashes are equal.
func (g *Repo) TreeHash(commit, dir string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	tree, _, err := g.tree(commit, dir)
	if err != nil {
		return "", err
	}
	return tree.Hash.String(), nil
}

// tree returns the tree of the folder dir ("" for the whole tree) at a
// commit, and dir cleaned (no slashes around it). The caller holds g.mu.
func (g *Repo) tree(commit, dir string) (*object.Tree, string, error) {
	c, err := g.r.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, "", fmt.Errorf("commit %s of %s: %w", commit, g.URL, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, "", err
	}
	if dir = strings.Trim(path.Clean("/"+dir), "/"); dir != "" {
		if tree, err = tree.Tree(dir); err != nil {
			return nil, "", fmt.Errorf("folder %q at commit %s of %s: %w", dir, short(commit), g.URL, ErrNotFound)
		}
	}
	return tree, dir, nil
}

// Packages returns the folders (relative to dir) that hold a Kptfile at a
// commit, sorted.
func (g *Repo) Packages(commit, dir string) ([]string, error) {
	files, err := g.Files(commit, dir)
	if err != nil {
		return nil, err
	}
	pkgs := files.Packages()
	sort.Strings(pkgs)
	return pkgs, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
