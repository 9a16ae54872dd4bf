package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// IsAncestor reports whether the commit ancestor is of or in its history.
func (g *Repo) IsAncestor(ancestor, of string) (bool, error) {
	if ancestor == of {
		return true, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	a, err := g.r.CommitObject(plumbing.NewHash(ancestor))
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil // a commit the repository lacks is in no history of it
	}
	if err != nil {
		return false, fmt.Errorf("cannot read commit %s of %s: %w", short(ancestor), g.URL, err)
	}
	o, err := g.r.CommitObject(plumbing.NewHash(of))
	if err != nil {
		return false, fmt.Errorf("cannot read commit %s of %s: %w", short(of), g.URL, err)
	}
	return a.IsAncestor(o)
}

// GitDir returns the repository's git folder: <path>/.git, or the path
// itself for a bare repository (what a lock on the repository is taken
// on); looked up once for the Repo.
func (g *Repo) GitDir() string {
	g.gitDirOnce.Do(func() {
		g.gitDir = g.Path
		dot := filepath.Join(g.Path, ".git")
		if fi, err := os.Stat(dot); err == nil && fi.IsDir() {
			g.gitDir = dot
		}
	})
	return g.gitDir
}

// Push pushes ref updates (each from the value it had to the value it has
// now, "" for none) to a remote with the user's git (their credential
// helpers and SSH configuration apply), all of them or none (--atomic),
// never by force: an update is the remote's fast-forward, a deletion is
// leased on the value kptkit read (--force-with-lease=<ref>:<old>).
func (g *Repo) Push(ctx context.Context, remote string, refs []pkgrev.RefUpdate) error {
	if len(refs) == 0 {
		return nil
	}
	args := []string{"push", "--atomic", "--quiet"}
	var specs []string
	for _, u := range refs {
		if err := checkUpdates([]pkgrev.RefUpdate{u}); err != nil {
			return fmt.Errorf("cannot push to %s: %w", remote, err)
		}
		if u.New == "" {
			args = append(args, "--force-with-lease="+u.Name+":"+u.Old)
			specs = append(specs, ":"+u.Name)
			continue
		}
		specs = append(specs, u.New+":"+u.Name)
	}
	args = append(append(args, "--", remote), specs...)
	if _, err := g.git(ctx, "", args...); err != nil {
		return fmt.Errorf("cannot push to %s: %w", remote, err)
	}
	return nil
}

// workTreeFiles lists the work trees from the git folder's own files, as
// git worktree list reads them, without running git (a run moves refs in
// many repositories): the main work tree (unless the repository is bare)
// and its HEAD, each linked work tree (worktrees/<id>/gitdir names its .git
// file) and its HEAD. False when the git folder is not laid out so (a .git
// file), for git to say.
func (g *Repo) workTreeFiles() ([]workTree, bool) {
	dir := g.GitDir()
	var trees []workTree
	if dir != g.Path {
		head, err := os.ReadFile(filepath.Join(dir, "HEAD"))
		if err != nil {
			return nil, false
		}
		trees = append(trees, workTree{path: g.Path, branch: headBranch(head)})
	}
	linked, err := os.ReadDir(filepath.Join(dir, "worktrees"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	for _, e := range linked {
		at := filepath.Join(dir, "worktrees", e.Name())
		head, err := os.ReadFile(filepath.Join(at, "HEAD"))
		gitFile, err2 := os.ReadFile(filepath.Join(at, "gitdir"))
		if err != nil || err2 != nil {
			return nil, false
		}
		trees = append(trees, workTree{path: filepath.Dir(strings.TrimSpace(string(gitFile))), branch: headBranch(head)})
	}
	return trees, true
}

// headBranch is the branch a HEAD file names ("" for a detached head).
func headBranch(head []byte) string {
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return ""
	}
	return ref
}
