package fanout

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/selector"
)

// validate checks a PackageVariantSet with Porch's rules and texts
// (controllers/packagevariantsets validate.go), and a few of ours, marked.
// Each error's Path is the field it is about; its Msg is the whole text.
func validate(pvs *porch.PackageVariantSet) []decode.Error {
	var errs []decode.Error
	add := func(path, format string, args ...any) {
		errs = append(errs, decode.Error{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if pvs.Metadata.Name == "" { // ours: the API server would refuse it
		add("metadata.name", "metadata.name is a required field")
	}
	if up := pvs.Spec.Upstream; up == nil {
		add("spec.upstream", "spec.upstream is a required field")
	} else {
		if up.Package == "" {
			add("spec.upstream.package", "spec.upstream.package is a required field")
		}
		if up.Repo == "" {
			add("spec.upstream.repo", "spec.upstream.repo is a required field")
		}
		// Current Porch names the upstream by revision or by workspace.
		if up.Revision == "" && up.WorkspaceName == "" {
			add("spec.upstream.revision", "spec.upstream.revision is a required field")
		}
	}
	if len(pvs.Spec.Targets) == 0 {
		add("spec.targets", "must specify at least one item in spec.targets")
	}
	for i, t := range pvs.Spec.Targets {
		errs = append(errs, validateTarget(i, t)...)
	}
	return errs
}

func validateTarget(i int, t porch.Target) []decode.Error {
	var errs []decode.Error
	field := fmt.Sprintf("spec.targets[%d]", i)
	add := func(path, format string, args ...any) {
		errs = append(errs, decode.Error{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
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
			add(field+".objectSelector.apiVersion", "spec.targets[%d].objectselector.apiVersion cannot be empty", i)
		}
		if os.Kind == "" {
			add(field+".objectSelector.kind", "spec.targets[%d].objectselector.kind cannot be empty", i)
		}
	}
	if count != 1 {
		add(field, "%s must specify one of `repositories`, `repositorySelector`, or `objectSelector`", field)
	}
	if t.Template != nil {
		errs = append(errs, validateTemplate(t.Template, field+".template")...)
	}
	return errs
}

func validateRepositories(rts []porch.RepositoryTarget, field string) []decode.Error {
	var errs []decode.Error
	add := func(path, format string, args ...any) {
		errs = append(errs, decode.Error{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if len(rts) == 0 {
		add(field+".repositories", "%s.repositories must not be an empty list if specified", field)
	}
	for j, rt := range rts {
		if rt.Name == "" {
			add(fmt.Sprintf("%s.repositories[%d].name", field, j), "%s.repositories[%d].name cannot be empty", field, j)
		}
		for k, pn := range rt.PackageNames {
			if pn == "" {
				add(fmt.Sprintf("%s.repositories[%d].packageNames[%d]", field, j, k),
					"%s.repositories[%d].packageNames[%d] cannot be empty", field, j, k)
			}
		}
	}
	return errs
}

func validateTemplate(t *porch.PackageVariantTemplate, field string) []decode.Error {
	var errs []decode.Error
	add := func(path, format string, args ...any) {
		errs = append(errs, decode.Error{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if p := t.AdoptionPolicy; p != nil && *p != porch.AdoptionPolicyAdoptNone && *p != porch.AdoptionPolicyAdoptExisting {
		add(field+".adoptionPolicy", "%s.adoptionPolicy can only be %q or %q", field,
			porch.AdoptionPolicyAdoptNone, porch.AdoptionPolicyAdoptExisting)
	}
	if p := t.DeletionPolicy; p != nil && *p != porch.DeletionPolicyOrphan && *p != porch.DeletionPolicyDelete {
		add(field+".deletionPolicy", "%s.deletionPolicy can only be %q or %q", field,
			porch.DeletionPolicyOrphan, porch.DeletionPolicyDelete)
	}
	if d := t.Downstream; d != nil {
		if d.Repo != nil && d.RepoExpr != nil {
			add(field+".downstream", "%s may specify only one of `downstream.repo` and `downstream.repoExpr`", field)
		}
		if d.Package != nil && d.PackageExpr != nil {
			add(field+".downstream", "%s may specify only one of `downstream.package` and `downstream.packageExpr`", field)
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
			add(f, "%s may specify only one of `name` and `nameExpr`", f)
		}
		if inj.Name == nil && inj.NameExpr == nil {
			add(f, "%s must specify either `name` or `nameExpr`", f)
		}
	}
	if p := t.Pipeline; p != nil {
		errs = append(errs, validateFunctions(p.Validators, field+".pipeline.validators")...)
		errs = append(errs, validateFunctions(p.Mutators, field+".pipeline.mutators")...)
	}
	return errs
}

func validateMapExprs(exprs []porch.MapExpr, field string) []decode.Error {
	var errs []decode.Error
	for j, me := range exprs {
		f := fmt.Sprintf("%s[%d]", field, j)
		if me.Key != nil && me.KeyExpr != nil {
			errs = append(errs, decode.Error{Path: f, Msg: f + " may specify only one of `key` and `keyExpr`"})
		}
		if me.Key == nil && me.KeyExpr == nil { // ours: Porch would make the key ""
			errs = append(errs, decode.Error{Path: f, Msg: f + " must specify one of `key` and `keyExpr`"})
		}
		if me.Value != nil && me.ValueExpr != nil {
			errs = append(errs, decode.Error{Path: f, Msg: f + " may specify only one of `value` and `valueExpr`"})
		}
	}
	return errs
}

// validateFunctions checks pipeline entries as Porch does: an image (we
// accept an exec too, as kpt does with --allow-exec), a name without ".".
func validateFunctions(fns []*yaml.Node, field string) []decode.Error {
	var errs []decode.Error
	for i, n := range fns {
		f := fmt.Sprintf("%s[%d]", field, i)
		var fn porch.FunctionTemplate
		if de := decode.Into(n, &fn, decode.Options{}, f); len(de) > 0 {
			errs = append(errs, prefixed(de)...)
			continue
		}
		if fn.Image == "" && fn.Exec == "" {
			errs = append(errs, decode.Error{Path: f + ".image", Msg: f + ".image must not be empty"})
		}
		if strings.Contains(fn.Name, ".") {
			errs = append(errs, decode.Error{Path: f + ".name", Msg: f + ".name must not contain '.'"})
		}
	}
	return errs
}

// prefixed turns decode errors into whole messages that start with their path.
func prefixed(errs []decode.Error) []decode.Error {
	out := make([]decode.Error, len(errs))
	for i, e := range errs {
		out[i] = decode.Error{Path: e.Path, Msg: e.Error()}
	}
	return out
}

// selectors checks the targets' label selectors and returns them by target
// index (a repositorySelector, or an objectSelector's labels).
func selectors(targets []porch.Target) (map[int]selector.Selector, []decode.Error) {
	out := map[int]selector.Selector{}
	var errs []decode.Error
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
			errs = append(errs, decode.Error{Path: p, Msg: p + ": " + e.Msg})
		}
		out[i] = sel
	}
	return out, errs
}
