package fleet

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
)

// prune removes, or releases, the packages the run's variants no longer
// want, deciding from the output as it was before the run. Only packages a
// variant owns are touched, and only within the run's scope: a variant of
// the run whose downstream moved drops its old package; a set of the run
// (expanded without a failing target) drops its children it no longer
// wants; with PruneAll, a package whose variant is absent is dropped too.
// Each goes by its deletion policy: delete, or orphan (released: it stays,
// without an owner).
func (r *runner) prune(existing []Stored) []Removal {
	wanted := map[string]bool{}
	for _, j := range r.plan.jobs {
		if j.path != "" {
			wanted[j.path] = true
		}
	}
	sets := map[string]*setPlan{}
	for _, s := range r.plan.sets {
		sets[s.key()] = s
	}
	var out []Removal
	for _, st := range existing {
		own, err := ownershipOf(st.Kptfile)
		if err != nil || own.owner == "" || wanted[st.Path] {
			continue
		}
		policy := own.policy
		switch j, s := r.plan.owners[own.owner], sets[own.set]; {
		case j != nil:
			if j.v.stalled {
				continue // an invalid variant keeps what it has
			}
			policy = j.pv.Spec.DeletionPolicy
		case s != nil:
			if len(s.stalled) > 0 || len(s.targetErrs) > 0 {
				continue // a target that failed for now may want it back
			}
		case !r.opts.PruneAll:
			continue
		}
		out = append(out, r.drop(st.Path, own.owner, policy))
	}
	return out
}

// drop deletes a package, or releases it when its policy is orphan.
func (r *runner) drop(path, owner, policy string) Removal {
	rm := Removal{Path: path, Owner: owner, Released: policy == porch.DeletionPolicyOrphan}
	var err error
	if rm.Released {
		err = r.release(path)
	} else {
		err = r.opts.Store.Delete(path)
	}
	if err != nil {
		rm.Error = err.Error()
	}
	return rm
}

// release takes the owner's annotations off a package.
func (r *runner) release(path string) error {
	files, err := r.opts.Store.Read(path)
	if err != nil || files == nil {
		return err
	}
	files, err = editKptfile(files, func(kf *yaml.RNode) error {
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
	_, err = r.opts.Store.Write(path, files)
	return err
}
