package fleet

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

// A package is its owner's only where the owner wrote it: the owner
// annotation names the variant, the downstream annotation the path it
// wrote the package to. A package elsewhere that names an owner — a copy
// (cp -r edge01/app edge01/app-backup), a folder with a forged owner — is
// no variant's: never updated, pruned or released, and named in the report
// as a warning. The existing packages the run removes are decided before
// anything is written (a drop), so that a variant whose new package lies
// inside its old one, or around it, moves it: no removal takes a file a
// package of the run wrote.

// drop is an existing package the run removes, or releases.
type drop struct {
	st     Stored
	own    ownership
	policy string
	// job is the run's variant that owns it (its package moved), whose
	// failure keeps it; nil for a set's child or an absent variant.
	job *job
}

func (d *drop) released() bool { return d.policy == porch.DeletionPolicyOrphan }

// places holds what the run knows of the output before it writes.
type places struct {
	listed []string         // the existing packages' paths, sorted
	drops  map[string]*drop // by path
	wanted map[string]bool  // the paths the run's variants write
	paths  []string         // those, sorted
}

// survey classifies the existing packages: strays (named in results),
// and, with pruning, those the run drops (prune's rules, decided now).
func (r *runner) survey(existing []Stored) []result.Result {
	pl := &places{drops: map[string]*drop{}, wanted: map[string]bool{}}
	r.places = pl
	for _, j := range r.plan.jobs {
		if j.path != "" && !pl.wanted[j.path] {
			pl.wanted[j.path] = true
			pl.paths = append(pl.paths, j.path)
		}
	}
	slices.Sort(pl.paths)
	sets := map[string]*setPlan{}
	for _, s := range r.plan.sets {
		sets[s.key()] = s
	}
	var rs []result.Result
	for _, st := range existing {
		pl.listed = append(pl.listed, st.Path)
		own, err := ownershipOf(st.Kptfile)
		if err != nil || own.owner == "" || pl.wanted[st.Path] {
			continue
		}
		if own.downstream != st.Path {
			if r.opts.Shard.holds(st.Path) {
				rs = append(rs, stray(st.Path, own))
			}
			continue
		}
		d := &drop{st: st, own: own, policy: own.policy}
		switch j, s := r.plan.owners[own.owner], sets[own.set]; {
		case !r.opts.Prune && !r.opts.PruneAll:
			continue
		case j != nil:
			if len(j.errs) > 0 {
				continue // an invalid variant keeps what it has
			}
			d.job, d.policy = j, j.deletionPolicy
		case s != nil:
			if len(s.stalled) > 0 || len(s.targetErrs) > 0 {
				continue // a target that failed for now may want it back
			}
		case !r.opts.PruneAll:
			continue
		}
		if !r.prunes(d) {
			continue // another shard's (shard.go)
		}
		pl.drops[st.Path] = d
	}
	slices.Sort(pl.listed)
	return rs
}

// stray is the warning for a package that names an owner somewhere its
// owner did not write it.
func stray(p string, own ownership) result.Result {
	if own.downstream == "" {
		return result.Warningf("%s: its %s names %s %s but not where that variant wrote it (%s): no variant's, left alone",
			p, kptfile.FileName, v1alpha1.AnnotationOwner, own.owner, v1alpha1.AnnotationDownstream)
	}
	return result.Warningf("%s: its %s names %s %s, which wrote it to %s: a copy is no variant's, left alone",
		p, kptfile.FileName, v1alpha1.AnnotationOwner, own.owner, own.downstream)
}

// going reports whether the run removes the existing package at p for
// certain when j's package is written: a drop (not a release) that no
// other variant's outcome decides.
func (pl *places) going(p string, j *job) bool {
	d := pl.drops[p]
	return d != nil && !d.released() && (d.job == nil || d.job == j)
}

// inside returns the existing packages below the folder p.
func (pl *places) inside(p string) []string { return below(pl.listed, p) }

// below returns the paths of sorted that lie below the folder p.
func below(sorted []string, p string) []string {
	i := sort.SearchStrings(sorted, p+"/")
	var out []string
	for ; i < len(sorted) && strings.HasPrefix(sorted[i], p+"/"); i++ {
		out = append(out, sorted[i])
	}
	return out
}

// enclosing returns the existing package whose folder holds p, or "".
func (pl *places) enclosing(p string) string {
	for d := parent(p); d != ""; d = parent(d) {
		if i := sort.SearchStrings(pl.listed, d); i < len(pl.listed) && pl.listed[i] == d {
			return d
		}
	}
	return ""
}

// place decides where j's new package goes in the output as it is: it
// may not lie inside, or around, an existing package the run keeps
// (packages cannot nest); inside or around packages the run removes it is
// a move, and old holds those packages' files the write takes over or
// removes (relative to j's folder), moved names those it takes whole.
func (r *runner) place(j *job, read kptpkg.Files) (old kptpkg.Files, moved []string, err error) {
	pl := r.places
	outer := pl.enclosing(j.path)
	if outer != "" && !pl.going(outer, j) {
		return nil, nil, fmt.Errorf("the downstream package %s lies inside the package %s, which this run keeps: packages cannot nest", j.path, outer)
	}
	for _, in := range pl.inside(j.path) {
		if !pl.going(in, j) {
			return nil, nil, fmt.Errorf("the downstream package %s would hold the package %s, which this run keeps: packages cannot nest", j.path, in)
		}
		moved = append(moved, in)
	}
	if outer == "" && len(moved) == 0 {
		return nil, nil, nil
	}
	old = kptpkg.Files{}
	for f, b := range r.packageFiles(j.path, read, moved) {
		if outer != "" || slices.ContainsFunc(moved, func(m string) bool { return kptpkg.Inside(path.Join(j.path, f), m) }) {
			old[f] = b
		}
	}
	return old, moved, nil
}

// packageFiles returns the files read below the folder p that are its
// package's: less those of other packages inside it — folders whose
// Kptfile names an owner (another variant's package, or a copy) and the
// folders the run's variants write — but for those keep names.
func (r *runner) packageFiles(p string, read kptpkg.Files, keep []string) kptpkg.Files {
	var others []string
	for f, b := range read {
		if path.Base(f) != kptfile.FileName || f == kptfile.FileName {
			continue
		}
		if dir := path.Join(p, path.Dir(f)); !slices.Contains(keep, dir) {
			if own, err := ownershipOf(b); err == nil && own.owner != "" {
				others = append(others, path.Dir(f))
			}
		}
	}
	for _, w := range below(r.places.paths, p) {
		others = append(others, strings.TrimPrefix(w, p+"/"))
	}
	if len(others) == 0 {
		return read
	}
	out := kptpkg.Files{}
	for f, b := range read {
		if !slices.ContainsFunc(others, func(o string) bool { return kptpkg.Inside(f, o) }) {
			out[f] = b
		}
	}
	return out
}
