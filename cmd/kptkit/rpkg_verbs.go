package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

const (
	rpkgPullHelp = `Writes a package revision's files into DIR, which must not exist, with
.KptRevisionMetadata: the revision's name and resourceVersion (its commit),
which push checks.`
	rpkgPushHelp = `Replaces a Draft's files with DIR's (pulled with rpkg pull, then edited): a
commit on its drafts/ branch, "Rendering package" as Porch writes it. The
draft must still be at the commit DIR was pulled at. kptkit does not render
on push as Porch's server does: render DIR first (kptkit render DIR).`
	rpkgProposeHelp = `Proposes Drafts for approval (Draft → Proposed): a "Rendering package" commit
of the draft's files (as Porch renders once more), on proposed/<dir>/<package>/
<workspace>; the drafts/ branch is deleted. Refused while the Kptfile's
readiness gates are not met.`
	rpkgApproveHelp = `Approves Proposed revisions (Proposed → Published): a commit on the
Repository's branch whose parents are the branch's head and the proposal's,
whose tree is the branch's with the package's folder replaced; the branch and
the new tag <dir>/<package>/v<N> move to it (N: one more than the package's
highest Published or DeletionProposed revision) and the proposed/ branch is
deleted, all in one transaction. As porchctl, approving a DeletionProposed
revision makes it Published again (del deletes it). Refused while the
Kptfile's readiness gates are not met.`
	rpkgRejectHelp = `Rejects proposals: a Proposed revision becomes a Draft again (its branch
moves back to drafts/), a DeletionProposed one Published (its
deletionProposed/ branch is deleted).`
	rpkgProposeDeleteHelp = `Proposes Published revisions for deletion: a deletionProposed/<dir>/<package>/
v<N> branch at the revision's commit.`
	rpkgDelHelp = `Deletes package revisions: a Draft's or Proposed revision's branch; a
DeletionProposed revision's tag and deletionProposed/ branch; the branch
head's package by a commit that removes its folder from the branch. A
Published revision is refused (propose it for deletion first), and so is a
revision another package revision of the namespace names as its upstream.`
)

// verbFunc makes the change a lifecycle verb asks of one revision.
type verbFunc func(e *rpkgEnv, s *pkgrev.Snapshot, rev *pkgrev.Revision, g *gitrepo.Repo) (pkgrev.Change, error)

// lifecycleVerb runs a verb for each name, as porchctl does: "<name>
// <done>" for each success, "<name> failed (<error>)" for each failure,
// exit 1 when any failed.
func lifecycleVerb(do verbFunc) func(c *call, args []string) error {
	return func(c *call, args []string) error {
		f := newRpkgFlags(c, true)
		e, err := f.parse(c, args, []string{"NAME"}, -1)
		if err != nil {
			return err
		}
		failed := false
		for _, name := range f.Args() {
			if err := e.change(c, name, do); err != nil {
				fmt.Fprintf(c.stderr, "%s failed (%s)\n", name, err)
				failed = true
			}
		}
		if failed {
			return exitCode(1)
		}
		return nil
	}
}

// change makes a verb's change to one revision and prints its message.
func (e *rpkgEnv) change(c *call, name string, do verbFunc) error {
	s, _, g, err := e.find(name)
	if err != nil {
		return err
	}
	if s, err = e.writable(s, g); err != nil {
		return err
	}
	rev, ok := s.Find(name)
	if !ok {
		return errNotFound(name)
	}
	ch, err := do(e, s, rev, g)
	if err != nil {
		return err
	}
	if _, err := g.Apply(context.Background(), ch); err != nil {
		return err
	}
	if ch.Notice != "" {
		fmt.Fprintln(c.stderr, ch.Notice)
	}
	if ch.Done != "" {
		fmt.Fprintln(c.stdout, ch.Done)
	}
	return nil
}

func rpkgPropose(e *rpkgEnv, s *pkgrev.Snapshot, rev *pkgrev.Revision, g *gitrepo.Repo) (pkgrev.Change, error) {
	files, err := g.Files(rev.Commit, rev.Path)
	if err != nil {
		return pkgrev.Change{}, err
	}
	return pkgrev.Propose(s, rev, files, e.stamp(s.Repo))
}

func rpkgApprove(e *rpkgEnv, s *pkgrev.Snapshot, rev *pkgrev.Revision, g *gitrepo.Repo) (pkgrev.Change, error) {
	files, err := g.Files(rev.Commit, rev.Path)
	if err != nil {
		return pkgrev.Change{}, err
	}
	return pkgrev.Approve(s, rev, files[kptfile.FileName], e.stamp(s.Repo))
}

func rpkgReject(_ *rpkgEnv, _ *pkgrev.Snapshot, rev *pkgrev.Revision, _ *gitrepo.Repo) (pkgrev.Change, error) {
	return pkgrev.Reject(rev)
}

func rpkgProposeDelete(_ *rpkgEnv, _ *pkgrev.Snapshot, rev *pkgrev.Revision, _ *gitrepo.Repo) (pkgrev.Change, error) {
	return pkgrev.ProposeDelete(rev)
}

func rpkgDel(e *rpkgEnv, s *pkgrev.Snapshot, rev *pkgrev.Revision, _ *gitrepo.Repo) (pkgrev.Change, error) {
	by := ""
	if rev.Lifecycle != porch.LifecyclePublished {
		var err error
		if by, err = e.referencedBy(rev.Name); err != nil {
			return pkgrev.Change{}, err
		}
	}
	return pkgrev.Delete(s, rev, by, e.stamp(s.Repo))
}

// referencedBy returns a package revision of the namespace whose clone or
// upgrade task names the revision as its upstream ("" for none).
func (e *rpkgEnv) referencedBy(name string) (string, error) {
	tasks := map[string][]porch.Task{}
	errs := make([]error, len(e.repos))
	var mu sync.Mutex
	parallel.Do(len(e.repos), workers(len(e.repos)), func(_, i int) {
		s, g, err := e.snapshot(e.repos[i])
		if err != nil {
			errs[i] = err
			return
		}
		for j := range s.Revisions {
			rev := &s.Revisions[j]
			if rev.Revision == -1 || rev.Name == name {
				continue
			}
			t, err := pkgrev.Tasks(g.Revisions(), rev)
			if err != nil {
				errs[i] = err
				return
			}
			mu.Lock()
			tasks[rev.Name] = t
			mu.Unlock()
		}
	})
	for _, err := range errs {
		if err != nil {
			return "", fmt.Errorf("failed to check upstream references: %w", err)
		}
	}
	return pkgrev.ReferencedBy(name, tasks), nil
}

func rpkgPull(c *call, args []string) error {
	f := newRpkgFlags(c, false)
	e, err := f.parse(c, args, []string{"NAME", "DIR"}, 2)
	if err != nil {
		return err
	}
	name, dir := f.Arg(0), f.Arg(1)
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("directory %q already exists, please delete the directory and retry", dir)
	}
	s, rev, g, err := e.find(name)
	if err != nil {
		return err
	}
	files, err := g.Files(rev.Commit, rev.Path)
	if err != nil {
		return err
	}
	return pkgfs.Write(dir, nil, pkgrev.Pulled(s.Repo, rev, files))
}

func rpkgPush(c *call, args []string) error {
	f := newRpkgFlags(c, true)
	e, err := f.parse(c, args, []string{"NAME", "DIR"}, 2)
	if err != nil {
		return err
	}
	name, dir := f.Arg(0), f.Arg(1)
	files, err := pkgfs.Read(dir)
	if err != nil {
		return err
	}
	for _, p := range files.Paths() {
		if !utf8.Valid(files[p]) {
			return fmt.Errorf("file %s is not a valid UTF-8 text file: current porch API doesn't support binary files", p)
		}
	}
	rv, files, err := pkgrev.ResourceVersion(files)
	if err != nil {
		return err
	}
	return e.change(c, name, func(e *rpkgEnv, s *pkgrev.Snapshot, rev *pkgrev.Revision, _ *gitrepo.Repo) (pkgrev.Change, error) {
		return pkgrev.Push(rev, files, rv, e.stamp(s.Repo))
	})
}
