package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// OpenKeeping opens the repository at path as Open does, keeping the
// descriptors of its pack files open between reads (go-git otherwise opens
// a pack file for every object it reads from it): for reading many objects
// of many repositories, such as listing their package revisions. Release
// closes the descriptors; a later read opens them again.
func OpenKeeping(u, p string) (*Repo, error) {
	dot, wt, err := dotGit(p)
	if err != nil {
		return nil, fmt.Errorf("cannot open git repository %s: %w", p, err)
	}
	if dot == nil { // a .git file (a linked work tree, a submodule): go-git's own way
		return Open(u, p)
	}
	s := filesystem.NewStorageWithOptions(dot, newObjectCache(), filesystem.Options{KeepDescriptors: true})
	r, err := git.Open(s, wt)
	if err != nil {
		return nil, fmt.Errorf("cannot open git repository %s: %w", p, err)
	}
	g := &Repo{URL: u, Path: p, r: r, closer: s}
	g.gitDirOnce.Do(func() { // as dotGit found it
		g.gitDir = p
		if wt != nil {
			g.gitDir = filepath.Join(p, ".git")
		}
	})
	return g, nil
}

// dotGit returns the git folder of the repository at p (p/.git, or p
// itself when bare) and its work tree (nil when bare); a nil folder and no
// error when p/.git is a file.
func dotGit(p string) (dot, wt billy.Filesystem, err error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, nil, git.ErrRepositoryNotExists
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a folder", p)
	}
	switch fi, err := os.Stat(filepath.Join(p, ".git")); {
	case err == nil && fi.IsDir():
		return osfs.New(filepath.Join(p, ".git")), osfs.New(p), nil
	case err == nil:
		return nil, nil, nil
	}
	return osfs.New(p), nil, nil
}

// Release closes the descriptors a repository opened with OpenKeeping keeps;
// it can still be read (they are opened again).
func (g *Repo) Release() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closer == nil {
		return nil
	}
	return g.closer.Close()
}
