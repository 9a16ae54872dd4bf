package fleetio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// Revisions keeps a run's packages as package revisions in the git
// repositories of the downstream Repositories (variants render --git): each
// repository is locked for the whole run (one writer of kptkit at a time;
// git's compare-and-swap of every ref guards against any other), its refs
// moved in git's own transactions (gitrepo.Apply). Close lets go of the
// locks.
type Revisions struct {
	// RepoMap maps remote URLs to local clones.
	RepoMap map[string]string
	// Wait is how long to wait for another run's lock on a repository.
	Wait time.Duration
	// DryRun writes nothing: each change is recorded (Changes) and a made-up
	// commit returned.
	DryRun bool
	// Push pushes the refs a run changed in a repository to its URL (the
	// Repository's spec.git.repo, which --repo-map maps to the clone
	// written) when the run is done with it.
	Push bool

	mu      sync.Mutex
	repos   map[string]*openRepo
	changes []fleet.Write
	// named is a lock whose holder the run named, for the others to name
	// it alike (pkgfs.Lock.NameHolderAs).
	named atomic.Pointer[pkgfs.Lock]
}

var _ fleet.Revisions = (*Revisions)(nil)

// GitHolder is the file of a git folder a run holding its lock names
// itself in (pkgfs.LockFolder): in the git folder itself, beside git's own
// files, so that naming the holder makes no folder in each repository.
const GitHolder = "kptkit-lock"

// openRepo is a repository the run opened, its lock, and the refs it moved:
// first value read, last value written.
type openRepo struct {
	g     *gitrepo.Repo
	lock  *pkgfs.Lock
	moved map[string]*pkgrev.RefUpdate
	order []string
	// named is the lock's holder named (in the first use after Hold: Hold
	// takes the locks one by one, in order; the holders are named
	// several at once), and its error.
	named    sync.Once
	namedErr error
}

// open opens (and locks) a Repository's repository once for the run.
func (rv *Revisions) open(repo pkgrev.Repository) (*openRepo, error) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	key := repo.Namespace + "/" + repo.Name
	if o := rv.repos[key]; o != nil {
		return o, nil
	}
	local, err := gitrepo.LocalFor(repo.URL, repo.File, rv.RepoMap)
	if err != nil {
		return nil, err
	}
	g, err := gitrepo.OpenKeeping(repo.URL, local)
	if err != nil {
		return nil, err
	}
	lock, err := pkgfs.LockFolder(g.GitDir(), GitHolder, !rv.DryRun, rv.Wait)
	if err != nil {
		_ = g.Release()
		return nil, err
	}
	o := &openRepo{g: g, lock: lock, moved: map[string]*pkgrev.RefUpdate{}}
	if rv.repos == nil {
		rv.repos = map[string]*openRepo{}
	}
	rv.repos[key] = o
	return o, nil
}

// Hold opens and locks a Repository's repository for the run; the lock's
// holder is named at its first use (use), so that a run holding many
// repositories one by one, in order, names itself in them several at once.
func (rv *Revisions) Hold(repo pkgrev.Repository) error {
	_, err := rv.open(repo)
	return err
}

// use returns a Repository's repository, held, its lock's holder named.
func (rv *Revisions) use(repo pkgrev.Repository) (*openRepo, error) {
	o, err := rv.open(repo)
	if err != nil {
		return nil, err
	}
	o.named.Do(func() {
		if !rv.DryRun {
			if o.namedErr = o.lock.NameHolderAs(rv.named.Load()); o.namedErr == nil {
				rv.named.CompareAndSwap(nil, o.lock)
			}
		}
	})
	return o, o.namedErr
}

// Snapshot reads a Repository's package revisions.
func (rv *Revisions) Snapshot(repo pkgrev.Repository) (*pkgrev.Snapshot, error) {
	o, err := rv.use(repo)
	if err != nil {
		return nil, err
	}
	defer o.g.Release()
	refs, err := o.g.PorchRefs()
	if err != nil {
		return nil, err
	}
	s, err := pkgrev.Read(repo, refs, o.g.Revisions())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.g.Path, err)
	}
	return s, nil
}

// Files returns the files of a revision's package.
func (rv *Revisions) Files(repo pkgrev.Repository, rev *pkgrev.Revision) (kptpkg.Files, error) {
	o, err := rv.use(repo)
	if err != nil {
		return nil, err
	}
	defer o.g.Release()
	return o.g.Files(rev.Commit, rev.Path)
}

// Descends reports whether ancestor is the commit of or in its history.
func (rv *Revisions) Descends(repo pkgrev.Repository, of, ancestor string) (bool, error) {
	o, err := rv.use(repo)
	if err != nil {
		return false, err
	}
	defer o.g.Release()
	return o.g.IsAncestor(ancestor, of)
}

// Apply makes a change (or, dry, records it).
func (rv *Revisions) Apply(repo pkgrev.Repository, w fleet.Write) (string, error) {
	o, err := rv.use(repo)
	if err != nil {
		return "", err
	}
	commit := ""
	if rv.DryRun {
		rv.mu.Lock()
		rv.changes = append(rv.changes, w)
		if w.Change.Commit != nil {
			commit = fmt.Sprintf("%040x", len(rv.changes))
		}
		rv.mu.Unlock()
	} else if commit, err = o.g.Apply(context.Background(), w.Change); err != nil {
		return "", err
	}
	o.record(w.Change.Refs, commit)
	return commit, nil
}

// record keeps the refs a change moved: the first value read, the last
// written.
func (o *openRepo) record(refs []pkgrev.RefUpdate, commit string) {
	for _, u := range refs {
		if u.ToCommit {
			u.New = commit
		}
		if m := o.moved[u.Name]; m != nil {
			m.New = u.New
			continue
		}
		o.moved[u.Name] = &pkgrev.RefUpdate{Name: u.Name, Old: u.Old, New: u.New}
		o.order = append(o.order, u.Name)
	}
}

// Done pushes the refs the run moved in a repository, when asked to.
func (rv *Revisions) Done(repo pkgrev.Repository) error {
	if !rv.Push || rv.DryRun {
		return nil
	}
	o, err := rv.use(repo)
	if err != nil {
		return err
	}
	var refs []pkgrev.RefUpdate
	for _, name := range o.order {
		if u := o.moved[name]; u.Old != u.New {
			refs = append(refs, *u)
		}
	}
	return o.g.Push(context.Background(), repo.URL, refs)
}

// Changed reports whether the run changed (or, dry, would change) any
// repository: a commit, or a ref created, moved or deleted.
func (rv *Revisions) Changed() bool {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	for _, o := range rv.repos {
		for _, u := range o.moved {
			if u.Old != u.New {
				return true
			}
		}
	}
	return false
}

// Diff writes, for a dry run, each ref change and the diff of each
// revision's package against its base, in the order they were planned.
func (rv *Revisions) Diff(w io.Writer) {
	for _, c := range rv.changes {
		for _, u := range c.Change.Refs {
			switch {
			case u.Old == "":
				fmt.Fprintf(w, "would create %s (%s)\n", u.Name, c.Revision)
			case u.New == "" && !u.ToCommit:
				fmt.Fprintf(w, "would delete %s (%s)\n", u.Name, c.Revision)
			default:
				fmt.Fprintf(w, "would move %s (%s)\n", u.Name, c.Revision)
			}
		}
		if c.New != nil {
			diffPackage(w, c.Revision, c.Old, c.New)
		}
	}
}

// Close lets go of the repositories' locks and open files, several at
// once (a lock's release removes its holder file: for a run over many
// repositories, one at a time is most of a run that changes nothing).
func (rv *Revisions) Close() {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	next := make(chan *openRepo)
	var wg sync.WaitGroup
	for range min(closers, len(rv.repos)) {
		wg.Go(func() {
			for o := range next {
				_ = o.g.Release()
				o.lock.Unlock()
			}
		})
	}
	for _, o := range rv.repos {
		next <- o
	}
	close(next)
	wg.Wait()
	rv.repos = nil
}

// closers is how many repositories Close lets go of at once.
const closers = 8

// Referrers returns, for each package revision of the Repositories another
// names as its upstream (by its clone or upgrade task), the first by name
// of those naming it (pkgrev.Referrers), as Porch looks before deleting a
// revision. A Repository the run holds is read as it is now; any other is
// read without its lock, as Porch reads, or left out when its repository
// cannot be found or opened.
func (rv *Revisions) Referrers(repos []pkgrev.Repository) (map[string]string, error) {
	tasks := map[string][]porch.Task{}
	errs := make([]error, len(repos))
	var mu sync.Mutex
	parallel.Do(len(repos), min(len(repos), 2*runtime.GOMAXPROCS(0)), func(_, i int) {
		t, err := rv.tasks(repos[i])
		if err != nil {
			errs[i] = fmt.Errorf("failed to check upstream references: %s: %w", repos[i].Name, err)
			return
		}
		mu.Lock()
		maps.Copy(tasks, t)
		mu.Unlock()
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return pkgrev.Referrers(tasks), nil
}

// tasks returns the tasks of a Repository's revisions (branch heads left
// out), by name.
func (rv *Revisions) tasks(repo pkgrev.Repository) (map[string][]porch.Task, error) {
	rv.mu.Lock()
	o := rv.repos[repo.Namespace+"/"+repo.Name]
	rv.mu.Unlock()
	var g *gitrepo.Repo
	if o != nil {
		g = o.g
		defer g.Release()
	} else {
		// A repository the run cannot find or open holds no reference
		// it could see.
		local, err := gitrepo.LocalFor(repo.URL, repo.File, rv.RepoMap)
		if err != nil {
			return nil, nil
		}
		if g, err = gitrepo.Open(repo.URL, local); err != nil {
			return nil, nil
		}
	}
	refs, err := g.PorchRefs()
	if err != nil {
		return nil, err
	}
	s, err := pkgrev.Read(repo, refs, g.Revisions())
	if err != nil {
		return nil, err
	}
	out := map[string][]porch.Task{}
	for i := range s.Revisions {
		rev := &s.Revisions[i]
		if rev.Revision == -1 {
			continue
		}
		if out[rev.Name], err = pkgrev.Tasks(g.Revisions(), rev); err != nil {
			return nil, err
		}
	}
	return out, nil
}
