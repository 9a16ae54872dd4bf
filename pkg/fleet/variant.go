package fleet

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pipeline"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Reasons of a variant's Ready=False condition.
const (
	ReasonError        = "Error"
	ReasonRenderFailed = "RenderFailed"
	ReasonConflict     = "UpdateConflict"
)

// process renders one variant's package and hands it to the Store (or, in
// git, to the Revisions). Every problem is recorded on the variant;
// nothing is written for a variant that fails.
func (r *runner) process(j *job) {
	up, ok := r.prepare(j)
	if !ok {
		return
	}
	if r.opts.Revisions != nil {
		r.processRevision(j, up)
		return
	}
	v := j.v
	read, err := r.opts.Store.Read(j.path)
	if err != nil {
		v.fail(ReasonError, "cannot read the downstream package %s: %v", j.path, err)
		return
	}
	existing := r.packageFiles(j.path, read, nil)
	old, moved := existing, []string(nil)
	if _, ok := existing[kptapi.FileName]; !ok {
		// No package there (a folder without a Kptfile is none): a new one,
		// perhaps moved into or around the variant's old one.
		existing = nil
		if old, moved, err = r.place(j, read); err != nil {
			v.fail(ReasonError, "%v", err)
			return
		}
	}
	own, ok := r.ownership(j, existing)
	if !ok {
		return
	}
	files, _, ok := r.produce(j, up, existing, own)
	if !ok || files == nil {
		return // failed, or skipped
	}
	wrote, err := r.opts.Store.Write(j.path, old, files)
	switch {
	case err != nil:
		v.fail(ReasonError, "cannot write the downstream package %s: %v", j.path, err)
	case existing == nil:
		v.Outcome = Created
		r.movedBy(moved)
	case wrote:
		v.Outcome = Updated
	default:
		v.Outcome = Unchanged
	}
}

// prepare finds the variant's upstream (its warnings and the plan's
// problems are on it already: plan.settle); false when the variant cannot
// be rendered (recorded on it).
func (r *runner) prepare(j *job) (*upstreamEntry, bool) {
	v := j.v
	repo := r.cluster.repository(j.pv.Metadata.Namespace, j.want.Repo)
	up := r.upstream(j.pv.Metadata.Namespace, *j.want, repo)
	if up.err != nil {
		v.stalled = true
		v.fail(ReasonError, "%v", up.err)
		return nil, false
	}
	v.Upstream, v.Commit = j.want.String(), up.up.Origin.Commit
	return up, true
}

// ownership reads who owns the existing package (none for none); false
// when its Kptfile does not read (recorded on the variant).
func (r *runner) ownership(j *job, existing kptpkg.Files) (ownership, bool) {
	if existing == nil {
		return ownership{}, true
	}
	own, err := ownershipOf(existing[kptapi.FileName])
	if err != nil {
		j.v.fail(ReasonError, "the downstream package %s has a Kptfile kptkit cannot read: %v", j.path, err)
		return ownership{}, false
	}
	return own, true
}

// produce makes the variant's package over the existing one (nil for
// none), sealed: nil files when nothing it depends on changed (the variant
// is then Unchanged and skipped); false when it failed (recorded on the
// variant). The base it was made from comes out too.
func (r *runner) produce(j *job, up *upstreamEntry, existing kptpkg.Files, own ownership) (kptpkg.Files, *base, bool) {
	v := j.v
	inputs := r.inputs(j, up.up)
	if own.owner == j.key() && own.downstream == j.path && own.inputs == "sha256:"+inputs && (sealed(own, existing) || own.rendered == seal(existing, false)) {
		v.Outcome, v.Skipped = Unchanged, true
		return nil, nil, true
	}
	b, err := r.base(j, up, existing, own)
	switch {
	case errors.Is(err, errFailed):
		return nil, nil, false // recorded on the variant
	case err != nil:
		v.fail(ReasonError, "%v", err)
		return nil, nil, false
	case len(b.conflicts) > 0:
		v.fail(ReasonConflict, "updating %s to %s conflicts with the downstream's own changes (the package is left as it was; --on-conflict=upstream takes the upstream's): %s",
			j.path, v.Upstream, strings.Join(b.conflicts, "; "))
		return nil, nil, false
	}
	files := b.done
	if files == nil {
		if files, err = r.build(j, b); err != nil {
			return nil, nil, false // recorded on the variant
		}
	}
	if files, err = r.porchLineage(j, up, files); err == nil {
		files, err = sealFiles(files, inputs, b.pristine)
	}
	if err != nil {
		v.fail(ReasonError, "%v", err)
		return nil, nil, false
	}
	return files, b, true
}

// base is what a variant's package is made from: the files and their items
// (items as they will be changed; before as read).
type base struct {
	files         kptpkg.Files
	items, before []*yaml.RNode
	own           ownership
	conflicts     []string
	// done is the package as it is to be written, when it is made already
	// (an update whose downstream had no edits of its own).
	done kptpkg.Files
	// pristine: the package is the variant made of its upstream and
	// nothing else (no edits by hand merged in, nothing adopted).
	pristine bool
	results  result.List // of making done
}

// base decides what the variant starts from: a fresh clone of its
// upstream; the package it owns, as it is; or that package updated from
// its moved upstream. A package the variant does not own is adopted only
// by its adoption policy, and never one another variant of the run owns.
func (r *runner) base(j *job, up *upstreamEntry, existing kptpkg.Files, own ownership) (*base, error) {
	if existing == nil {
		return r.fresh(j, up)
	}
	adopted := own.owner != j.key() || (own.downstream != "" && own.downstream != j.path)
	if adopted {
		if err := r.mayAdopt(j, own); err != nil {
			return nil, err
		}
		j.v.Adopted = true
		own = ownership{} // an adopted package is rendered again
	}
	lock, locked, err := r.lockOf(j, existing)
	if err != nil {
		return nil, fmt.Errorf("the downstream package %s: %w", j.path, err)
	}
	switch {
	case adopted && !locked:
		// As Porch: a package without an upstream lock is up to date; the
		// variant's changes are made to it as it is.
		return parsed(existing, own)
	case up.up.Origin.Commit == "":
		// A folder upstream has no history to merge with: render afresh.
		b, err := r.fresh(j, up)
		if b != nil {
			b.own = own
		}
		return b, err
	case !locked || sameRevision(lock, up.up.Origin):
		return parsed(existing, own)
	}
	return r.update(j, up, existing, lock, own)
}

// update merges the moved upstream into the downstream as kpt pkg update
// does, three ways: the base is what the variant made of the upstream it
// was made from (cloned, changed and rendered as now), the update what it
// makes of the new one, so that neither the variant's own changes nor its
// rendering count as downstream edits — only edits by hand do, and they
// are kept. Without such edits the package is the update itself; with
// them, the merged package is changed and rendered again.
func (r *runner) update(j *job, up *upstreamEntry, local kptpkg.Files, lock Origin, own ownership) (*base, error) {
	if sealed(own, local) {
		// Nobody edited the package since kptkit wrote it: the merge would
		// give the update itself (kpt pkg update over an unedited package).
		b, err := r.updated(j, up)
		if b != nil {
			j.v.Results = append(j.v.Results, b.results...)
		}
		return b, err
	}
	repo := r.cluster.repository(j.pv.Metadata.Namespace, j.want.Repo)
	oldFiles, err := r.opts.Source.At(lock, repo)
	if err != nil {
		return nil, fmt.Errorf("cannot read the upstream the downstream package %s was made from (%s at %s): %w", j.path, lock.Directory, lock.Ref, err)
	}
	oldClone, err := pkgupdate.Clone(oldFiles, path.Base(j.pv.Spec.Downstream.Package), lock)
	if err != nil {
		return nil, fmt.Errorf("cannot clone the upstream the downstream package %s was made from: %w", j.path, err)
	}
	oldBase, err := parsed(oldClone, ownership{})
	if err != nil {
		return nil, err
	}
	was, _, failure := r.make(j, oldBase)
	if failure != nil {
		j.v.fail(failure.reason, "making the base of the update (%s at %s): %s", lock.Directory, lock.Ref, failure.message)
		return nil, errFailed
	}
	upd, err := r.updated(j, up)
	if err != nil {
		return nil, err
	}
	if local, err = kptfile.Edit(local, func(kf *yaml.RNode) error {
		if err := annotate(kf, v1alpha1.AnnotationInputs, ""); err != nil {
			return err
		}
		return annotate(kf, v1alpha1.AnnotationRendered, "")
	}); err != nil {
		return nil, err
	}
	policy := pkgupdate.KeepLocal
	if r.opts.TakeUpstream {
		policy = pkgupdate.TakeUpstream
	}
	merged, conflicts, err := pkgupdate.Update(was, upd.done, local, up.up.Origin, policy)
	if err != nil {
		return nil, fmt.Errorf("cannot update %s to %s: %w", j.path, j.want, err)
	}
	if len(conflicts) > 0 && policy == pkgupdate.KeepLocal {
		b := &base{}
		for _, c := range conflicts {
			b.conflicts = append(b.conflicts, c.Error())
		}
		return b, nil
	}
	if merged.Equal(upd.done) {
		j.v.Results = append(j.v.Results, upd.results...)
		return upd, nil
	}
	return parsed(merged, own)
}

// updated is the variant made of its new upstream: the whole update when
// the package has no edits to keep. Its results are the caller's to keep.
func (r *runner) updated(j *job, up *upstreamEntry) (*base, error) {
	newBase, err := r.fresh(j, up)
	if err != nil {
		return nil, err
	}
	now, rs, failure := r.make(j, newBase)
	if failure != nil {
		j.v.Results = append(j.v.Results, rs...)
		j.v.fail(failure.reason, "%s", failure.message)
		return nil, errFailed
	}
	return &base{done: now, pristine: true, results: rs}, nil
}

// mayAdopt says whether a variant may take over a package it does not own.
func (r *runner) mayAdopt(j *job, own ownership) error {
	copied := own.downstream != "" && own.downstream != j.path
	if other := r.plan.owners[own.owner]; own.owner != "" && other != nil && !copied {
		return fmt.Errorf("the downstream package %s belongs to PackageVariant %s", j.path, own.owner)
	}
	if j.pv.Spec.AdoptionPolicy != porch.AdoptionPolicyAdoptExisting {
		who := "no PackageVariant owns it"
		switch {
		case copied:
			who = "no PackageVariant owns it (a copy: PackageVariant " + own.owner + " wrote it to " + own.downstream + ")"
		case own.owner != "":
			who = "it belongs to PackageVariant " + own.owner + ", which this run does not have"
		}
		return fmt.Errorf("the downstream package %s exists and %s: set spec.adoptionPolicy to %s to adopt it", j.path, who, porch.AdoptionPolicyAdoptExisting)
	}
	return nil
}

// sameRevision reports whether a downstream's lock is the upstream revision.
func sameRevision(lock, o Origin) bool {
	return lock.Commit == o.Commit && strings.Trim(lock.Directory, "/") == strings.Trim(o.Directory, "/")
}

// fresh is a new clone of the upstream: the run's clone of the revision,
// renamed for this variant (only its root Kptfile is read again).
func (r *runner) fresh(j *job, up *upstreamEntry) (*base, error) {
	name := path.Base(j.pv.Spec.Downstream.Package)
	files := up.clone
	items := kptpkg.Copy(up.items)
	before := up.items
	if name != path.Base(j.want.Package) {
		renamed, err := clone(Upstream{Files: kptpkg.Files{kptapi.FileName: up.up.Files[kptapi.FileName]}, Origin: up.up.Origin}, name)
		if err != nil {
			return nil, fmt.Errorf("cannot clone %s: %w", j.want, err)
		}
		kf, err := kptpkg.Items(kptapi.FileName, renamed[kptapi.FileName])
		if err != nil {
			return nil, err
		}
		files = files.Clone()
		files[kptapi.FileName] = renamed[kptapi.FileName]
		before = replaceFile(before, kptapi.FileName, kf)
		items = replaceFile(items, kptapi.FileName, kptpkg.Copy(kf))
	}
	return &base{files: files, items: items, before: before, pristine: true}, nil
}

// parsed is a base made from files as they are.
func parsed(files kptpkg.Files, own ownership) (*base, error) {
	before, err := files.Resources("", true)
	if err != nil {
		return nil, err
	}
	return &base{files: files, items: kptpkg.Copy(before), before: before, own: own}, nil
}

// replaceFile returns items with those of one file replaced.
func replaceFile(items []*yaml.RNode, file string, with []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, 0, len(items))
	done := false
	for _, n := range items {
		if p, _ := kptpkg.FileAnnotations(n); p == file {
			if !done {
				out = append(out, with...)
				done = true
			}
			continue
		}
		out = append(out, n)
	}
	if !done {
		out = append(out, with...)
	}
	return out
}

// failure is why a variant's package could not be made: its Ready
// condition's reason and message.
type failure struct{ reason, message string }

// make gives the package what Porch gives a variant's package — its name
// and package context, its pipeline, its injection points filled, and the
// owner — then renders it.
func (r *runner) make(j *job, b *base) (kptpkg.Files, []result.Result, *failure) {
	items, rs := r.mutate(j, b.items)
	if result.List(rs).HasError() {
		return nil, rs, &failure{ReasonError, strings.Join(result.List(rs).Errors().Messages(), "; ")}
	}
	if r.opts.Render == nil {
		files, err := kptpkg.Sink(items, b.before, b.files)
		if err != nil {
			return nil, rs, &failure{ReasonError, err.Error()}
		}
		return files, rs, nil
	}
	files, rrs, err := r.opts.Render.Render(b.files, items, b.before)
	rs = append(rs, rrs...)
	if err != nil {
		return nil, rs, &failure{ReasonRenderFailed, err.Error()}
	}
	if _, ok := files[kptapi.FileName]; !ok {
		return nil, rs, &failure{ReasonRenderFailed, "the pipeline removed the package's Kptfile (a function's output lacks it)"}
	}
	return files, rs, nil
}

// build makes the package, recording results and failure on the variant.
func (r *runner) build(j *job, b *base) (kptpkg.Files, error) {
	files, rs, f := r.make(j, b)
	j.v.Results = append(j.v.Results, rs...)
	if f != nil {
		j.v.fail(f.reason, "%s", f.message)
		return nil, errFailed
	}
	return files, nil
}

// errFailed: the failure is recorded on the variant already.
var errFailed = errors.New("failed")

// mutate applies the variant to the package's items.
func (r *runner) mutate(j *job, items []*yaml.RNode) ([]*yaml.RNode, []result.Result) {
	rl := kptpkg.ResourceList(items, nil, nil)
	pv := j.pv
	// Cloning names the package in its context, as Porch does.
	rs := pkgcontext.Apply(rl, pkgcontext.Edit{Data: map[string]string{"name": path.Base(pv.Spec.Downstream.Package)}, Create: true})
	if pc := pv.Spec.PackageContext; pc != nil {
		rs = append(rs, pkgcontext.Apply(rl, pkgcontext.Edit{Data: pc.Data, RemoveKeys: pc.RemoveKeys})...)
	}
	p := pipeline.Prepend{Owner: pv.Metadata.Name}
	if pl := pv.Spec.Pipeline; pl != nil {
		p.Mutators, p.Validators = pl.Mutators, pl.Validators
	}
	rs = append(rs, pipeline.Apply(rl, p)...)
	rs = append(rs, inject.Apply(rl, inject.Request{Injectors: pv.Spec.Injectors, Namespace: pv.Metadata.Namespace, Pool: r.cluster.pool})...)
	rs = append(rs, r.own(j, rl)...)
	return rl.Nodes(), rs
}

// own records the owner on the root Kptfile.
func (r *runner) own(j *job, rl *resourcelist.ResourceList) []result.Result {
	kf, rs := kptfile.RootItem(rl)
	switch {
	case len(rs) > 0:
		return rs
	case kf == nil:
		return []result.Result{result.Errorf("the package has 0 root Kptfiles, not one")}
	}
	n := kf.Edit()
	set, policy := "", ""
	if j.set != nil {
		set = j.set.key()
	}
	if j.deletionPolicy == porch.DeletionPolicyOrphan {
		policy = porch.DeletionPolicyOrphan
	}
	for _, a := range [][2]string{
		{v1alpha1.AnnotationOwner, j.key()}, {v1alpha1.AnnotationDownstream, j.path}, {v1alpha1.AnnotationVariantSet, set},
		{v1alpha1.AnnotationDeletionPolicy, policy}, {v1alpha1.AnnotationRendered, ""}, {v1alpha1.AnnotationInputs, ""},
	} {
		if err := annotate(n, a[0], a[1]); err != nil {
			return []result.Result{kf.Errorf("metadata.annotations", "%s: %v", kptapi.FileName, err)}
		}
	}
	return nil
}
