package fleet

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// validate checks a PackageVariant as Porch's validatePackageVariant does,
// with its texts, all problems at once; then what kptkit needs beyond Porch
// to write the package safely. It sets Porch's default policies.
func validate(pv *porch.PackageVariant) []string {
	var errs []string
	s := &pv.Spec
	if s.Upstream == nil {
		errs = append(errs, "missing required field spec.upstream")
	} else {
		if s.Upstream.Repo == "" {
			errs = append(errs, "missing required field spec.upstream.repo")
		}
		if s.Upstream.Package == "" {
			errs = append(errs, "missing required field spec.upstream.package")
		}
	}
	if s.Downstream == nil {
		errs = append(errs, "missing required field spec.downstream")
	} else {
		if s.Downstream.Repo == "" {
			errs = append(errs, "missing required field spec.downstream.repo")
		}
		if s.Downstream.Package == "" {
			errs = append(errs, "missing required field spec.downstream.package")
		}
	}
	if s.AdoptionPolicy == "" {
		s.AdoptionPolicy = porch.AdoptionPolicyAdoptNone
	}
	if s.DeletionPolicy == "" {
		s.DeletionPolicy = porch.DeletionPolicyDelete
	}
	if s.AdoptionPolicy != porch.AdoptionPolicyAdoptNone && s.AdoptionPolicy != porch.AdoptionPolicyAdoptExisting {
		errs = append(errs, fmt.Sprintf("spec.adoptionPolicy field can only be %q or %q",
			porch.AdoptionPolicyAdoptNone, porch.AdoptionPolicyAdoptExisting))
	}
	if s.DeletionPolicy != porch.DeletionPolicyOrphan && s.DeletionPolicy != porch.DeletionPolicyDelete {
		errs = append(errs, fmt.Sprintf("spec.deletionPolicy can only be %q or %q",
			porch.DeletionPolicyOrphan, porch.DeletionPolicyDelete))
	}
	if pc := s.PackageContext; pc != nil {
		// Porch's field.Invalid texts; also keys a ConfigMap refuses.
		for _, e := range v1alpha1.ValidateContextKeys(pc.Data, pc.RemoveKeys, "spec.packageContext.data", "spec.packageContext.removeKeys") {
			errs = append(errs, e.Error())
		}
	}
	for i, inj := range s.Injectors {
		if inj.Name == "" {
			errs = append(errs, fmt.Sprintf("spec.injectors[%d].name must not be empty", i))
		}
	}
	return append(errs, beyondPorch(pv)...)
}

// beyondPorch are kptkit's own checks: the downstream must name a folder
// inside the output, and pipeline functions must be runnable and keep their names (Porch
// duplicates a function whose name holds "." on every run).
func beyondPorch(pv *porch.PackageVariant) []string {
	var errs []string
	if d := pv.Spec.Downstream; d != nil {
		errs = append(errs, downstreamErrs(d)...)
	}
	if strings.Contains(pv.Metadata.Name, ".") {
		errs = append(errs, fmt.Sprintf("metadata.name %q must not contain '.': it names the functions the variant adds to the Kptfile", pv.Metadata.Name))
	}
	if pl := pv.Spec.Pipeline; pl != nil {
		errs = append(errs, functions(pl.Mutators, "spec.pipeline.mutators")...)
		errs = append(errs, functions(pl.Validators, "spec.pipeline.validators")...)
	}
	return errs
}

// downstreamErrs checks a downstream's repo and package, those given:
// each a path inside the output, not a name kptkit reserves.
func downstreamErrs(d *porch.Downstream) []string {
	var errs []string
	for _, f := range []struct{ field, value string }{{"spec.downstream.repo", d.Repo}, {"spec.downstream.package", d.Package}} {
		if f.value == "" {
			continue
		}
		err := kptpkg.CheckPath(f.field, f.value)
		if err == nil {
			err = kptpkg.CheckReserved(f.field, f.value)
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	return errs
}

// functions checks pipeline entries with the texts Porch uses for a set's
// template.
func functions(fns []*yaml.Node, field string) []string {
	var errs []string
	for i, fn := range fns {
		f := fmt.Sprintf("%s[%d]", field, i)
		if fn.Kind != yaml.MappingNode {
			errs = append(errs, f+" must be a mapping (a Kptfile function entry)")
			continue
		}
		image, exec, name := scalarField(fn, "image"), scalarField(fn, "exec"), scalarField(fn, "name")
		if image == "" && exec == "" {
			errs = append(errs, f+".image must not be empty")
		}
		if strings.Contains(name, ".") {
			errs = append(errs, f+".name must not contain '.'")
		}
	}
	return errs
}

func scalarField(m *yaml.Node, key string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.ScalarNode {
			return m.Content[i+1].Value
		}
	}
	return ""
}

// revision reads an upstream revision as Porch writes it: a number, or the
// "v3" form of older Porch versions; 0 when none is given.
func revision(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "v"))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("spec.upstream.revision %q must be a revision number (1, 2, …)", s)
	}
	return n, nil
}
