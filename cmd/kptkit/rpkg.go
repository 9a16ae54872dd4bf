package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/kptkit/kptkit/internal/fleetio"
	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/pkg/api/meta"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

var rpkgCommand = &command{
	name:    "rpkg",
	summary: "Porch's package revisions in git, without a server: porchctl rpkg's lifecycle verbs (rpkg --help)",
	help:    rpkgAbout,
	subs: []*command{
		{name: "get", synopsis: "[NAME] --cluster PATH [flags]", help: rpkgGetHelp, run: rpkgGet},
		{name: "pull", synopsis: "NAME DIR --cluster PATH [flags]", help: rpkgPullHelp, run: rpkgPull},
		{name: "push", synopsis: "NAME DIR --cluster PATH [flags]", help: rpkgPushHelp, run: rpkgPush},
		{name: "propose", synopsis: "NAME... --cluster PATH [flags]", help: rpkgProposeHelp, run: lifecycleVerb(rpkgPropose)},
		{name: "approve", synopsis: "NAME... --cluster PATH [flags]", help: rpkgApproveHelp, run: lifecycleVerb(rpkgApprove)},
		{name: "reject", synopsis: "NAME... --cluster PATH [flags]", help: rpkgRejectHelp, run: lifecycleVerb(rpkgReject)},
		{name: "propose-delete", synopsis: "NAME... --cluster PATH [flags]", help: rpkgProposeDeleteHelp, run: lifecycleVerb(rpkgProposeDelete)},
		{name: "del", synopsis: "NAME... --cluster PATH [flags]", help: rpkgDelHelp, run: lifecycleVerb(rpkgDel)},
	},
}

const rpkgAbout = `Lists and moves Porch's package revisions in the git repositories of the
cluster's Repository objects, as Porch's git adapter keeps them, with no
server: drafts on drafts/<dir>/<package>/<workspace> branches, proposals on
proposed/..., published revisions as tags <dir>/<package>/v<N> and commits on
the Repository's branch, deletion proposals on deletionProposed/... branches.
A Porch server registered on the same repository lists the same revisions.
A relative spec.git.repo is a path from the folder of the file the Repository
is written in (--cluster's), not from the working folder.

Refs move only in git's own transactions, each checked against the value
read, all of a verb's refs together or none; a published tag never moves;
refs/remotes/ are never written; a branch checked out in a work tree is never
moved. Commit times come from SOURCE_DATE_EPOCH when it is set.`

// rpkgFlags are the flags every rpkg subcommand takes.
type rpkgFlags struct {
	*flag.FlagSet
	cluster, namespace, author string
	repoMap                    *pairFlag
}

func newRpkgFlags(c *call, writes bool) *rpkgFlags {
	f := &rpkgFlags{FlagSet: c.flags(), repoMap: newPairFlag("URL=PATH")}
	f.StringVar(&f.cluster, "cluster", "", "the Repository objects: a YAML file or a folder of them, `PATH`")
	f.StringVar(&f.namespace, "n", "", "the `NAMESPACE` of the Repositories and package revisions (default: Kubernetes' default)")
	f.Var(f.repoMap, "repo-map", "read and write the git repository URL in the local clone PATH, `URL=PATH` (repeatable)")
	if writes {
		f.StringVar(&f.author, "author", "", "the commits' author `NAME` (and email) when the Repository names none, as Porch uses the requesting user's name (default: Porch's own)")
	}
	return f
}

// parse reads the flags and arguments (at most max; at least the ones
// named in want) and reads the cluster's Repositories.
func (f *rpkgFlags) parse(c *call, args []string, want []string, max int) (*rpkgEnv, error) {
	if err := c.parse(f.FlagSet, args, max); err != nil {
		return nil, err
	}
	switch {
	case f.cluster == "":
		return nil, usageErrorf("--cluster is required: the Repository objects")
	case f.NArg() < len(want):
		return nil, usageErrorf("missing argument %s", want[f.NArg()])
	}
	if f.namespace == "" {
		f.namespace = meta.DefaultNamespace
	}
	objects, files, err := fleetio.ReadObjects(f.cluster)
	if err != nil {
		return nil, fmt.Errorf("cannot read the cluster's objects: %w", err)
	}
	repos, err := pkgrev.Repositories(objects, files, f.namespace)
	if err != nil {
		return nil, err
	}
	when, err := commitTime()
	if err != nil {
		return nil, err
	}
	return &rpkgEnv{namespace: f.namespace, repos: repos, repoMap: f.repoMap.m, user: f.author, when: when, open: map[string]*gitrepo.Repo{}}, nil
}

// commitTime is the time of the commits a run makes: SOURCE_DATE_EPOCH,
// else the clock's.
func commitTime() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Now().UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// rpkgEnv is one run's view of the namespace's repositories.
type rpkgEnv struct {
	namespace string
	repos     []pkgrev.Repository
	repoMap   map[string]string
	user      string
	when      time.Time
	mu        sync.Mutex
	open      map[string]*gitrepo.Repo
}

// errNotFound is Kubernetes' text for a PackageRevision it does not have.
func errNotFound(name string) error {
	return fmt.Errorf("packagerevisions.porch.kpt.dev %q not found", name)
}

// repository returns the Repository a revision's name starts with.
func (e *rpkgEnv) repository(name string) (pkgrev.Repository, bool) {
	repo := pkgrev.RepositoryName(name)
	for _, r := range e.repos {
		if r.Name == repo {
			return r, true
		}
	}
	return pkgrev.Repository{}, false
}

// git opens a Repository's git repository once for the run.
func (e *rpkgEnv) git(repo pkgrev.Repository) (*gitrepo.Repo, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if g := e.open[repo.Name]; g != nil {
		return g, nil
	}
	local, err := gitrepo.LocalFor(repo.URL, repo.File, e.repoMap)
	if err != nil {
		return nil, err
	}
	g, err := gitrepo.OpenKeeping(repo.URL, local)
	if err != nil {
		return nil, err
	}
	e.open[repo.Name] = g
	return g, nil
}

// snapshot reads a Repository's package revisions (and lets go of the
// repository's open files: a run reads many).
func (e *rpkgEnv) snapshot(repo pkgrev.Repository) (*pkgrev.Snapshot, *gitrepo.Repo, error) {
	g, err := e.git(repo)
	if err != nil {
		return nil, nil, fmt.Errorf("Repository %s: %w", repo.Name, err) //nolint:staticcheck // names the kind
	}
	defer g.Release()
	refs, err := g.PorchRefs()
	if err != nil {
		return nil, nil, fmt.Errorf("Repository %s: %w", repo.Name, err) //nolint:staticcheck
	}
	s, err := pkgrev.Read(repo, refs, g.Revisions())
	if err != nil {
		return nil, nil, fmt.Errorf("Repository %s: %s: %w", repo.Name, g.Path, err) //nolint:staticcheck
	}
	return s, g, nil
}

// find reads the revision a name names, from a fresh snapshot of its
// repository.
func (e *rpkgEnv) find(name string) (*pkgrev.Snapshot, *pkgrev.Revision, *gitrepo.Repo, error) {
	repo, ok := e.repository(name)
	if !ok {
		return nil, nil, nil, errNotFound(name)
	}
	s, g, err := e.snapshot(repo)
	if err != nil {
		return nil, nil, nil, err
	}
	rev, ok := s.Find(name)
	if !ok {
		return nil, nil, nil, errNotFound(name)
	}
	return s, rev, g, nil
}

// writable returns the snapshot of a repository kptkit is about to write,
// first creating its branch when the Repository asks for it and it is
// missing, as Porch does when the Repository is registered.
func (e *rpkgEnv) writable(s *pkgrev.Snapshot, g *gitrepo.Repo) (*pkgrev.Snapshot, error) {
	if s.Branch != "" || !s.Repo.CreateBranch {
		return s, nil
	}
	if _, err := g.Apply(context.Background(), pkgrev.CreateBranch(s, e.when)); err != nil {
		return nil, err
	}
	s, _, err := e.snapshot(s.Repo)
	return s, err
}

// stamp is who makes a run's commits in a repository, and when.
func (e *rpkgEnv) stamp(repo pkgrev.Repository) pkgrev.Stamp {
	return pkgrev.StampFor(repo, e.user, e.when)
}

// errFailed ends a verb after some names failed: each was printed.
var errFailed = errors.New("some package revisions failed")
