package fleet

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/pkgrev"
	"github.com/kptkit/kptkit/pkg/result"
)

// In git, the packages a run may prune are the owned revisions of the
// downstream Repositories it looks at: those its variants name and the
// cluster's deployment Repositories (spec.deployment). They are listed as
// the Store lists packages — <repo>/<package>, one per package, its newest
// revision that names an owner — so that survey applies folder mode's
// rules. A package dropped goes as Porch's deletionPolicy delete takes it
// (deletePackageRevision): its owned drafts and proposals are deleted, its
// owned published revisions proposed for deletion; orphan releases it and
// leaves git as it is.

// listRevisions reads the Repositories a run in git looks at and returns
// their packages that name an owner; a deployment Repository no variant
// names that cannot be read is a warning.
func (r *runner) listRevisions() ([]Stored, []result.Result) {
	keys := map[objectKey]bool{}
	for _, j := range r.plan.jobs {
		if len(j.errs) == 0 && j.hasDownstream && j.downstream.Repo != "" {
			keys[keyOf(j.namespace, j.downstream.Repo)] = false
		}
	}
	for k, repo := range r.cluster.repos {
		if _, ok := keys[k]; !ok && repo.Spec.Deployment && repo.Spec.Git != nil {
			keys[k] = true
		}
	}
	sorted := slices.SortedFunc(maps.Keys(keys), compareKeys)
	r.readRepos(sorted)
	var out []Stored
	var rs []result.Result
	r.listed = map[string]objectKey{}
	for _, k := range sorted {
		st := r.repoAt(k)
		if st.err != nil {
			if keys[k] {
				rs = append(rs, result.Warningf("%v: its packages are not pruned", st.err))
			}
			continue
		}
		for _, f := range st.revs {
			p := k.name + "/" + f.rev.Package
			if _, ok := r.listed[p]; ok || f.own.owner == "" {
				continue
			}
			r.listed[p] = k
			out = append(out, Stored{Path: p, Kptfile: f.files[kptapi.FileName]})
		}
	}
	return out, rs
}

func compareKeys(a, b objectKey) int {
	return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
}

// readRepos holds Repositories, one by one in order, then reads their
// snapshots, opts.Jobs at once.
func (r *runner) readRepos(keys []objectKey) {
	for _, k := range keys {
		if st := r.repoAt(k); st.err == nil {
			if err := r.opts.Revisions.Hold(st.repo); err != nil {
				st.err = fmt.Errorf("Repository %s: %w", st.repo.Name, err) //nolint:staticcheck // names the kind
			}
		}
	}
	next := make(chan objectKey)
	var wg sync.WaitGroup
	for range min(r.opts.Jobs, max(len(keys), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				st := r.repoAt(k)
				st.mu.Lock()
				_, _ = r.snapshot(st) // an error stays on st
				st.mu.Unlock()
			}
		}()
	}
	for _, k := range keys {
		next <- k
	}
	close(next)
	wg.Wait()
}

// pruneRevisions removes, or releases, the packages survey dropped (see
// prune for which), each revision of the owner there: one Removal per
// revision, named by its PackageRevision.
func (r *runner) pruneRevisions() []Removal {
	var out []Removal
	for _, p := range slices.Sorted(maps.Keys(r.places.drops)) {
		d := r.places.drops[p]
		if j := d.job; j != nil && (j.v.stalled || j.v.Outcome == Failed) {
			continue
		}
		k := r.listed[p]
		st := r.repoAt(k)
		pkg := strings.TrimPrefix(p, k.name+"/")
		for _, f := range st.revs {
			if f.rev.Package != pkg || f.own.owner != d.own.owner || f.own.downstream != p {
				continue
			}
			rm := Removal{Path: f.rev.Name, Owner: d.own.owner, Released: d.released(), Proposed: f.rev.Lifecycle == porch.LifecyclePublished, repo: k}
			if !rm.Released {
				if err := r.remove(st, f.rev.Name); err != nil {
					rm.Error = err.Error()
				}
			}
			out = append(out, rm)
		}
	}
	return out
}

// remove deletes a draft or proposal, or proposes the deletion of a
// published revision, as the Repository is now.
func (r *runner) remove(st *repoState, name string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.snap
	rev, ok := s.Find(name)
	if !ok {
		return nil // gone already
	}
	var c pkgrev.Change
	var err error
	if rev.Lifecycle == porch.LifecyclePublished {
		c, err = pkgrev.ProposeDelete(rev)
	} else {
		refs, rerr := r.referrersIn(st.repo.Namespace)
		if rerr != nil {
			return rerr
		}
		c, err = pkgrev.Delete(s, rev, refs[name], pkgrev.StampFor(st.repo, r.opts.Author, r.opts.When))
	}
	if err != nil || c.Empty() {
		return err
	}
	commit, err := r.opts.Revisions.Apply(st.repo, Write{Change: c, Revision: name, Path: st.repo.Name + "/" + rev.Package})
	if err != nil {
		return err
	}
	s.Applied(c, commit)
	st.dirty = true
	return nil
}

// referrers are a namespace's revisions named as upstreams, or why they
// could not be read.
type referrers struct {
	by  map[string]string
	err error
}

// referrersIn returns, for each revision of the namespace's Repositories
// another names as its upstream, the first naming it: Porch refuses to
// delete such a revision ("cannot delete package revision, it is
// referenced as upstream by: ..."), and so does a run's prune. They are
// read once a run, at the first deletion in the namespace.
func (r *runner) referrersIn(namespace string) (map[string]string, error) {
	r.referrersMu.Lock()
	defer r.referrersMu.Unlock()
	if got, ok := r.referrers[namespace]; ok {
		return got.by, got.err
	}
	var repos []pkgrev.Repository
	for _, k := range slices.SortedFunc(maps.Keys(r.cluster.repos), func(a, b objectKey) int { return cmp.Compare(a.name, b.name) }) {
		if k.namespace != namespace {
			continue
		}
		if repo, err := pkgrev.RepositoryOf(r.cluster.repos[k].Repository); err == nil {
			repo.File = r.cluster.repos[k].File
			repos = append(repos, repo)
		}
	}
	by, err := r.opts.Revisions.Referrers(repos)
	if r.referrers == nil {
		r.referrers = map[string]referrers{}
	}
	r.referrers[namespace] = referrers{by, err}
	return by, err
}
