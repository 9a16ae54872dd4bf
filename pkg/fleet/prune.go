package fleet

import (
	"maps"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// prune removes, or releases, the packages the run's variants no longer
// want (survey decided which, from the output as it was before the run).
// Only packages a variant owns, where it wrote them, are touched, and only
// within the run's scope: a variant of the run whose downstream moved drops
// its old package (unless it failed: its old package stays); a set of the
// run (expanded without a failing target) drops its children it no longer
// wants; with PruneAll, a package whose variant is absent is dropped too.
// Each goes by its deletion policy: delete, or orphan (released: it stays,
// without an owner). A package a variant's new package was written around
// went with that write.
func (r *runner) prune() []Removal {
	var out []Removal
	for _, p := range slices.Sorted(maps.Keys(r.places.drops)) {
		d := r.places.drops[p]
		if j := d.job; j != nil && (j.v.stalled || j.v.Outcome == Failed) {
			continue
		}
		if r.moved[p] {
			out = append(out, Removal{Path: p, Owner: d.own.owner})
			continue
		}
		out = append(out, r.drop(d))
	}
	return out
}

// movedBy records the packages a variant's new package was written around:
// its write removed them.
func (r *runner) movedBy(paths []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		r.moved[p] = true
	}
}

// drop deletes a package's files, or releases it when its policy is
// orphan.
func (r *runner) drop(d *drop) Removal {
	rm := Removal{Path: d.st.Path, Owner: d.own.owner, Released: d.released()}
	read, err := r.opts.Store.Read(d.st.Path)
	if err == nil {
		files := r.packageFiles(d.st.Path, read, nil)
		if rm.Released {
			err = r.release(d.st.Path, files)
		} else if files != nil {
			err = r.opts.Store.Delete(d.st.Path, files)
		}
	}
	if err != nil {
		rm.Error = err.Error()
	}
	return rm
}

// release takes the owner's annotations off a package.
func (r *runner) release(path string, old kptpkg.Files) error {
	if old == nil {
		return nil
	}
	files, err := kptfile.Edit(old, func(kf *yaml.RNode) error {
		for _, a := range ownershipAnnotations {
			if err := annotate(kf, a, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = r.opts.Store.Write(path, old, files)
	return err
}
