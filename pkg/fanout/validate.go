package fanout

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/selector"
)

// problems collects validation errors, each at its field with its whole text.
type problems []decode.Error

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, decode.Error{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// validate checks a PackageVariantSet with Porch's rules and texts
// (controllers/packagevariantsets validate.go), and a few of ours, marked.
// Each error's Path is the field it is about; its Msg is the whole text.
func validate(pvs *porch.PackageVariantSet) []decode.Error {
	var errs problems
	if pvs.Metadata.Name == "" { // ours: the API server would refuse it
		errs.add("metadata.name", "metadata.name is a required field")
	}
	if up := pvs.Spec.Upstream; up == nil {
		errs.add("spec.upstream", "spec.upstream is a required field")
	} else {
		if up.Package == "" {
			errs.add("spec.upstream.package", "spec.upstream.package is a required field")
		}
		if up.Repo == "" {
			errs.add("spec.upstream.repo", "spec.upstream.repo is a required field")
		}
		// Current Porch names the upstream by revision or by workspace.
		if up.Revision == "" && up.WorkspaceName == "" {
			errs.add("spec.upstream.revision", "either spec.upstream.revision or spec.upstream.workspaceName must be specified")
		}
	}
	if len(pvs.Spec.Targets) == 0 {
		errs.add("spec.targets", "must specify at least one item in spec.targets")
	}
	for i, t := range pvs.Spec.Targets {
		errs = append(errs, validateTarget(i, t)...)
	}
	return errs
}

func validateTarget(i int, t porch.Target) []decode.Error {
	var errs problems
	field := fmt.Sprintf("spec.targets[%d]", i)
	count := 0
	if t.Repositories != nil {
		count++
		errs = append(errs, validateRepositories(t.Repositories, field)...)
	}
	if t.RepositorySelector != nil {
		count++
	}
	if os := t.ObjectSelector; os != nil {
		count++
		// Porch spells the field "objectselector" in these two texts.
		if os.APIVersion == "" {
			errs.add(field+".objectSelector.apiVersion", "spec.targets[%d].objectselector.apiVersion cannot be empty", i)
		}
		if os.Kind == "" {
			errs.add(field+".objectSelector.kind", "spec.targets[%d].objectselector.kind cannot be empty", i)
		}
	}
	if count != 1 {
		errs.add(field, "%s must specify one of `repositories`, `repositorySelector`, or `objectSelector`", field)
	}
	if t.Template != nil {
		errs = append(errs, validateTemplate(t.Template, field+".template")...)
	}
	return errs
}

func validateRepositories(rts []porch.RepositoryTarget, field string) []decode.Error {
	var errs problems
	if len(rts) == 0 {
		errs.add(field+".repositories", "%s.repositories must not be an empty list if specified", field)
	}
	for j, rt := range rts {
		if rt.Name == "" {
			errs.add(fmt.Sprintf("%s.repositories[%d].name", field, j), "%s.repositories[%d].name cannot be empty", field, j)
		}
		for k, pn := range rt.PackageNames {
			if pn == "" {
				errs.add(fmt.Sprintf("%s.repositories[%d].packageNames[%d]", field, j, k),
					"%s.repositories[%d].packageNames[%d] cannot be empty", field, j, k)
			}
		}
	}
	return errs
}

func validateTemplate(t *porch.PackageVariantTemplate, field string) []decode.Error {
	var errs problems
	if p := t.AdoptionPolicy; p != nil && *p != porch.AdoptionPolicyAdoptNone && *p != porch.AdoptionPolicyAdoptExisting {
		errs.add(field+".adoptionPolicy", "%s.adoptionPolicy can only be %q or %q", field,
			porch.AdoptionPolicyAdoptNone, porch.AdoptionPolicyAdoptExisting)
	}
	if p := t.DeletionPolicy; p != nil && *p != porch.DeletionPolicyOrphan && *p != porch.DeletionPolicyDelete {
		errs.add(field+".deletionPolicy", "%s.deletionPolicy can only be %q or %q", field,
			porch.DeletionPolicyOrphan, porch.DeletionPolicyDelete)
	}
	if d := t.Downstream; d != nil {
		if d.Repo != nil && d.RepoExpr != nil {
			errs.add(field+".downstream", "%s may specify only one of `downstream.repo` and `downstream.repoExpr`", field)
		}
		if d.Package != nil && d.PackageExpr != nil {
			errs.add(field+".downstream", "%s may specify only one of `downstream.package` and `downstream.packageExpr`", field)
		}
	}
	errs = append(errs, validateMapExprs(t.LabelExprs, field+".labelExprs")...)
	errs = append(errs, validateMapExprs(t.AnnotationExprs, field+".annotationExprs")...)
	if t.PackageContext != nil {
		errs = append(errs, validateMapExprs(t.PackageContext.DataExprs, field+".packageContext.dataExprs")...)
	}
	for i, inj := range t.Injectors {
		f := fmt.Sprintf("%s.injectors[%d]", field, i)
		if inj.Name != nil && inj.NameExpr != nil {
			errs.add(f, "%s may specify only one of `name` and `nameExpr`", f)
		}
		if inj.Name == nil && inj.NameExpr == nil {
			errs.add(f, "%s must specify either `name` or `nameExpr`", f)
		}
	}
	if p := t.Pipeline; p != nil {
		errs = append(errs, validateFunctions(p.Validators, field+".pipeline.validators")...)
		errs = append(errs, validateFunctions(p.Mutators, field+".pipeline.mutators")...)
	}
	return errs
}

func validateMapExprs(exprs []porch.MapExpr, field string) []decode.Error {
	var errs problems
	for j, me := range exprs {
		f := fmt.Sprintf("%s[%d]", field, j)
		if me.Key != nil && me.KeyExpr != nil {
			errs.add(f, "%s may specify only one of `key` and `keyExpr`", f)
		}
		if me.Key == nil && me.KeyExpr == nil { // ours: Porch would make the key ""
			errs.add(f, "%s must specify one of `key` and `keyExpr`", f)
		}
		if me.Value != nil && me.ValueExpr != nil {
			errs.add(f, "%s may specify only one of `value` and `valueExpr`", f)
		}
	}
	return errs
}

// validateFunctions checks pipeline entries as Porch does: an image (we
// accept an exec too, as kpt does with --allow-exec), a name without ".".
func validateFunctions(fns []*yaml.Node, field string) []decode.Error {
	var errs problems
	for i, n := range fns {
		f := fmt.Sprintf("%s[%d]", field, i)
		var fn porch.FunctionTemplate
		if de := decode.Into(n, &fn, decode.Options{}, f); len(de) > 0 {
			for _, e := range de { // whole texts, led by their path
				errs.add(e.Path, "%s", e)
			}
			continue
		}
		if fn.Image == "" && fn.Exec == "" {
			errs.add(f+".image", "%s.image must not be empty", f)
		}
		if strings.Contains(fn.Name, ".") {
			errs.add(f+".name", "%s.name must not contain '.'", f)
		}
	}
	return errs
}

// selectors checks the targets' label selectors and returns them by target
// index (a repositorySelector, or an objectSelector's labels).
func selectors(targets []porch.Target) ([]selector.Selector, []decode.Error) {
	out := make([]selector.Selector, len(targets))
	var errs problems
	for i, t := range targets {
		var (
			ls    *porch.LabelSelector
			field string
		)
		switch {
		case t.RepositorySelector != nil:
			ls, field = t.RepositorySelector, fmt.Sprintf("spec.targets[%d].repositorySelector", i)
		case t.ObjectSelector != nil:
			ls, field = &t.ObjectSelector.LabelSelector, fmt.Sprintf("spec.targets[%d].objectSelector", i)
		default:
			continue
		}
		reqs := make([]selector.Requirement, len(ls.MatchExpressions))
		for j, r := range ls.MatchExpressions {
			reqs[j] = selector.Requirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
		}
		sel, serrs := selector.New(ls.MatchLabels, reqs)
		for _, e := range serrs {
			p := field + "." + e.Path
			errs.add(p, "%s: %s", p, e.Msg)
		}
		out[i] = sel
	}
	return out, errs
}
