package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
// on).
func (g *Repo) GitDir() string {
	dot := filepath.Join(g.Path, ".git")
	if fi, err := os.Stat(dot); err == nil && fi.IsDir() {
		return dot
	}
	return g.Path
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
