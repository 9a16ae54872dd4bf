package fleet

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
	"github.com/kptkit/kptkit/pkg/result"
)

// In git (Options.Revisions), a variant's package is a package revision
// of its downstream Repository, as the PackageVariant controller keeps it:
// its newest owned Draft, updated in place (folder mode's three-way merge,
// then a "Rendering package" commit); else its latest owned Published
// revision, from which a new draft starts (an edit draft for the variant's
// changes, an upgrade draft when the upstream moved); else a clone draft.
// A Proposed revision is under review: left alone, the variant waits.

// ReasonWaiting is the Ready condition's reason of a variant whose
// revision is proposed: it waits for approval.
const ReasonWaiting = "WaitingForApproval"

// repoState is a downstream Repository of a run in git: its snapshot, read
// once, kept current by each change the run makes; mu serialises the
// reading and the changes.
type repoState struct {
	mu   sync.Mutex
	repo pkgrev.Repository
	err  error // the Repository or its repository cannot be used
	snap *pkgrev.Snapshot
	// revs are the revisions a variant's package may be, each package's
	// newest first (candidates), with their files, as read.
	revs []found
	// unreadable are the packages a revision of which cannot be read (its
	// tree, or its Kptfile): their variants fail, the others go on.
	unreadable map[string]error
	changed    []*job // the variants that changed it
	dirty      bool   // the run changed it
}

// repoOf returns the state of the variant's downstream Repository.
func (r *runner) repoOf(j *job) *repoState {
	return r.repoAt(keyOf(j.pv.Metadata.Namespace, j.pv.Spec.Downstream.Repo))
}

// repoAt returns the state of a downstream Repository.
func (r *runner) repoAt(k objectKey) *repoState {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.repos[k]; st != nil {
		return st
	}
	st := &repoState{}
	r.repos[k] = st
	cr := r.cluster.repository(k.namespace, k.name)
	if cr == nil {
		st.err = fmt.Errorf("the cluster has no Repository %q: in git, a variant's downstream is a Repository's git repository", k.name)
		return st
	}
	st.repo, st.err = pkgrev.RepositoryOf(cr.Repository)
	st.repo.File = cr.File
	return st
}

// snapshot returns the Repository's snapshot, read on first use (and its
// branch created first when the Repository asks for it and it is missing,
// as Porch does). Called with st.mu held.
func (r *runner) snapshot(st *repoState) (*pkgrev.Snapshot, error) {
	if st.snap != nil || st.err != nil {
		return st.snap, st.err
	}
	s, err := r.opts.Revisions.Snapshot(st.repo)
	if err == nil && s.Branch == "" && s.Repo.CreateBranch {
		c := pkgrev.CreateBranch(s, r.opts.When)
		var commit string
		if commit, err = r.opts.Revisions.Apply(st.repo, Write{Change: c}); err == nil {
			s.Applied(c, commit)
		}
	}
	if err == nil {
		st.snap = s
		st.revs, st.unreadable = r.readCandidates(st, s)
	}
	if err != nil {
		st.err = fmt.Errorf("Repository %s: %w", st.repo.Name, err) //nolint:staticcheck // names the kind
	}
	return st.snap, st.err
}

// readCandidates reads the files and owner of every revision a variant's
// package may be (candidates), package by package; a package a revision
// of which cannot be read is left out, with why (unreadable), so that only
// its own variants fail and nothing prunes it.
func (r *runner) readCandidates(st *repoState, s *pkgrev.Snapshot) (out []found, unreadable map[string]error) {
	seen := map[string]bool{}
	for _, rev := range s.Revisions {
		if seen[rev.Package] {
			continue
		}
		seen[rev.Package] = true
		revs, err := r.readPackage(st, s, rev.Package)
		if err != nil {
			if unreadable == nil {
				unreadable = map[string]error{}
			}
			unreadable[rev.Package] = err
			continue
		}
		out = append(out, revs...)
	}
	return out, unreadable
}

// readPackage reads the files and owner of each of a package's candidates.
func (r *runner) readPackage(st *repoState, s *pkgrev.Snapshot, pkg string) ([]found, error) {
	var out []found
	for _, c := range candidates(s, pkg) {
		files, err := r.opts.Revisions.Files(st.repo, &c)
		if err != nil {
			return nil, fmt.Errorf("cannot read the PackageRevision %s: %w", c.Name, err)
		}
		own, err := ownershipOf(files[kptapi.FileName])
		if err != nil {
			return nil, fmt.Errorf("the PackageRevision %s has a Kptfile kptkit cannot read: %w", c.Name, err)
		}
		out = append(out, found{rev: c, files: files, own: own})
	}
	return out, nil
}

// found is a revision of the variant's package and what it holds.
type found struct {
	rev   pkgrev.Revision
	files kptpkg.Files
	own   ownership
}

// current finds the revision the variant's package is (nil for none): its
// newest owned draft or proposal, else its latest owned published
// revision; without an owned one, the newest unowned one, which base
// adopts or refuses by the adoption policy.
func (r *runner) current(j *job, st *repoState) *found {
	var other *found
	for i := range st.revs {
		f := &st.revs[i]
		switch {
		case f.rev.Package != j.pv.Spec.Downstream.Package:
		case f.own.owner == j.key() && (f.own.downstream == "" || f.own.downstream == j.path):
			return f
		case other == nil:
			other = f
		}
	}
	return other
}

// candidates are the revisions of a package (its path relative to the
// Repository's directory) a variant's package may be, newest first: its
// drafts and proposals (by workspace number), then its published revisions
// (by revision). The branch's head and revisions proposed for deletion are
// none.
func candidates(s *pkgrev.Snapshot, pkg string) []pkgrev.Revision {
	var drafts, published []pkgrev.Revision
	for _, rev := range s.Revisions {
		switch {
		case rev.Package != pkg || rev.Revision == -1:
		case rev.Lifecycle == porch.LifecycleDraft, rev.Lifecycle == porch.LifecycleProposed:
			drafts = append(drafts, rev)
		case rev.Lifecycle == porch.LifecyclePublished:
			published = append(published, rev)
		}
	}
	sortDesc(drafts, func(r pkgrev.Revision) int { return workspaceNumber(r.Workspace) })
	sortDesc(published, func(r pkgrev.Revision) int { return r.Revision })
	return append(drafts, published...)
}

// workspaceNumber is N of packagevariant-N (0 for another workspace).
func workspaceNumber(ws string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(ws, pkgrev.VariantWorkspacePrefix))
	return n
}

// sortDesc sorts revisions by a key, highest first, then by name.
func sortDesc(revs []pkgrev.Revision, key func(pkgrev.Revision) int) {
	slices.SortStableFunc(revs, func(a, b pkgrev.Revision) int {
		return cmp.Or(cmp.Compare(key(b), key(a)), cmp.Compare(a.Name, b.Name))
	})
}

// processRevision renders one variant's package as a package revision of
// its downstream Repository (see above). The package is made outside the
// Repository's lock; its change is planned and applied under it, against
// the Repository as the run left it.
func (r *runner) processRevision(j *job, up *upstreamEntry) {
	v := j.v
	st := r.repoOf(j)
	st.mu.Lock()
	_, err := r.snapshot(st)
	var cur *found
	if err == nil {
		err = st.unreadable[j.pv.Spec.Downstream.Package]
	}
	if err == nil {
		cur = r.current(j, st)
	}
	st.mu.Unlock()
	if err != nil {
		v.fail(ReasonError, "%v", err)
		return
	}
	var existing kptpkg.Files
	own := ownership{}
	if cur != nil {
		existing, own, v.Revision = cur.files, cur.own, cur.rev.Name
		if cur.rev.Lifecycle == porch.LifecycleProposed && own.owner == j.key() {
			v.Outcome, v.Reason, v.Message = Waiting, ReasonWaiting, "the PackageRevision "+cur.rev.Name+" is proposed: waiting for approval"
			return
		}
		if !r.untouched(j, cur) {
			return
		}
	}
	files, b, ok := r.produce(j, up, existing, own)
	switch {
	case !ok:
		return
	case files == nil || existing != nil && files.Equal(existing):
		v.Outcome = Unchanged
		return
	}
	d, err := r.draft(j, up, cur, b, files)
	if err != nil {
		v.fail(ReasonError, "%v", err)
		return
	}
	r.write(j, st, cur, d, existing)
}

// untouched checks that a draft kptkit wrote last run still descends from
// the last commit kptkit made there (a reviewer's commits on it are kept;
// a history rewritten under kptkit, a force push, is not): false when it
// does not (recorded on the variant).
func (r *runner) untouched(j *job, cur *found) bool {
	rec, ok := r.opts.Records[j.key()]
	if !ok || rec.Revision != cur.rev.Name || rec.Commit == "" || rec.Commit == cur.rev.Commit || cur.rev.Lifecycle != porch.LifecycleDraft {
		return true
	}
	st := r.repoOf(j)
	ok, err := r.opts.Revisions.Descends(st.repo, cur.rev.Commit, rec.Commit)
	switch {
	case err != nil:
		j.v.fail(ReasonError, "cannot read the history of the PackageRevision %s: %v", cur.rev.Name, err)
	case !ok:
		j.v.fail(ReasonError, "the history of the PackageRevision %s was rewritten: its head %s does not descend from %s, the last commit kptkit made there (a force push); "+
			"delete the draft (kptkit rpkg del %s) or restore that commit", cur.rev.Name, short(cur.rev.Commit), short(rec.Commit), cur.rev.Name)
	}
	return err == nil && ok
}

func short(commit string) string { return commit[:min(len(commit), 12)] }

// draft is what the variant writes: over its draft, a render commit; else
// a new draft whose task clones the upstream (no revision), copies the
// published revision (the variant's changes) or upgrades it (the upstream
// moved).
func (r *runner) draft(j *job, up *upstreamEntry, cur *found, b *base, files kptpkg.Files) (pkgrev.Draft, error) {
	st := r.repoOf(j)
	d := pkgrev.Draft{Path: pkgrev.FullPath(st.repo.Directory, j.pv.Spec.Downstream.Package), Files: files}
	switch {
	case cur != nil && cur.rev.Lifecycle == porch.LifecycleDraft:
		d.Workspace = cur.rev.Workspace
		return d, nil
	case cur == nil:
		d.Task = pkgrev.CloneTask(up.up.Revision)
		d.TaskFiles = files
		if b != nil && b.files != nil {
			taskFiles, err := r.cloneLineage(j, up, b.files)
			if err != nil {
				return d, err
			}
			d.TaskFiles = taskFiles
		}
		return d, nil
	}
	lock, locked, err := r.lockOf(j, cur.files)
	if err != nil {
		return d, err
	}
	if !locked || sameRevision(lock, up.up.Origin) {
		d.Task, d.TaskTree = pkgrev.EditTask(cur.rev.Name), cur.rev.Tree
		return d, nil
	}
	d.Task, d.TaskFiles = pkgrev.UpgradeTask(r.revisionOf(j, lock), up.up.Revision, cur.rev.Name), files
	return d, nil
}

// revisionOf names the upstream PackageRevision a lock records: the
// variant's upstream Repository, the package, and the version its ref
// ends with (app/v1: v1).
func (r *runner) revisionOf(j *job, lock Origin) string {
	return pkgrev.Name(j.want.Repo, j.want.Package, path.Base(lock.Ref))
}

// write plans the variant's change on the Repository as the run left it
// and applies it, under the Repository's lock; the variant records the
// revision and the last commit.
func (r *runner) write(j *job, st *repoState, cur *found, d pkgrev.Draft, existing kptpkg.Files) {
	v := j.v
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.snap
	var rev *pkgrev.Revision
	if cur != nil && cur.rev.Lifecycle == porch.LifecycleDraft {
		rev, _ = s.Find(cur.rev.Name)
	} else {
		d.Workspace = s.NewWorkspace(j.pv.Spec.Downstream.Package)
	}
	lifecycle := cmp.Or(r.opts.Lifecycle, porch.LifecycleDraft)
	c, notice, err := pkgrev.WriteDraft(s, rev, d, lifecycle, pkgrev.StampFor(st.repo, r.opts.Author, r.opts.When))
	if err != nil {
		v.fail(ReasonError, "cannot write the PackageRevision of %s: %v", j.path, err)
		return
	}
	if notice != "" {
		v.Results = append(v.Results, result.Warningf("%s: PackageVariant %s: %s", j.where, j.key(), notice))
	}
	name := pkgrev.Name(st.repo.Name, j.pv.Spec.Downstream.Package, d.Workspace)
	commit, err := r.opts.Revisions.Apply(st.repo, Write{Change: c, Revision: name, Path: j.path, Old: existing, New: d.Files})
	if err != nil {
		v.fail(ReasonError, "cannot write the PackageRevision %s: %v", name, err)
		return
	}
	s.Applied(c, commit)
	st.changed, st.dirty = append(st.changed, j), true
	v.Revision, v.wrote = name, commit
	v.Outcome = Updated
	if rev == nil {
		v.Outcome = Created
	}
}

// finish ends a run in git: each Repository the run changed is done (its
// refs pushed); when that fails, the variants and removals that changed
// it fail.
func (r *runner) finish(removed []Removal) {
	for _, k := range slices.SortedFunc(maps.Keys(r.repos), compareKeys) {
		st := r.repos[k]
		if !st.dirty {
			continue
		}
		if err := r.opts.Revisions.Done(st.repo); err != nil {
			for _, j := range st.changed {
				if j.v.Outcome != Failed {
					j.v.fail(ReasonError, "%v", err)
				}
			}
			for i := range removed {
				if removed[i].repo == k && removed[i].Error == "" && !removed[i].Released {
					removed[i].Error = err.Error()
				}
			}
		}
	}
}
