package fanout

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/celexpr"
	"github.com/kptkit/kptkit/pkg/decode"
)

// Names of the variables templates' expressions see, as Porch names them.
const (
	VarRepoDefault    = "repoDefault"
	VarPackageDefault = "packageDefault"
	VarUpstream       = "upstream"
	VarTarget         = "target"
	VarRepository     = "repository"
)

// compiler compiles a set's expressions: repoExpr without the repository
// (it chooses which Repository that is), every other expression with it.
// Each distinct expression is compiled once per run.
type compiler struct {
	withRepo, withoutRepo *celexpr.Env
	errs                  []decode.Error
}

func newCompiler(costLimit uint64) (*compiler, error) {
	base := []celexpr.Var{
		{Name: VarRepoDefault, Type: celexpr.String},
		{Name: VarPackageDefault, Type: celexpr.String},
		{Name: VarUpstream, Type: celexpr.Dyn},
		{Name: VarTarget, Type: celexpr.Dyn},
	}
	without, err := celexpr.NewEnv(costLimit, base...)
	if err != nil {
		return nil, err
	}
	with, err := celexpr.NewEnv(costLimit, append(base, celexpr.Var{Name: VarRepository, Type: celexpr.Dyn})...)
	if err != nil {
		return nil, err
	}
	return &compiler{withRepo: with, withoutRepo: without}, nil
}

// bound declares the size of the largest value expressions will see (see
// celexpr.Env.Bound).
func (c *compiler) bound(n uint64) {
	c.withRepo.Bound(n)
	c.withoutRepo.Bound(n)
}

// expr compiles an expression of the template field `field`; a problem is
// recorded and nil returned.
func (c *compiler) expr(env *celexpr.Env, expr *string, field string) *celexpr.Program {
	if expr == nil || *expr == "" {
		return nil
	}
	p, err := env.Compile(*expr)
	if err != nil {
		c.errs = append(c.errs, decode.Error{Path: field, Msg: fmt.Sprintf("%s: cannot compile %q: %v", field, *expr, err)})
	}
	return p
}

// template is a target's template with its expressions compiled.
type template struct {
	src                  *porch.PackageVariantTemplate
	repoExpr, pkgExpr    *celexpr.Program
	labels, annotations  []mapExpr
	data                 []mapExpr
	removeKeys           []*celexpr.Program
	injectors            []*celexpr.Program // nameExpr of each injector, or nil
	mutators, validators []function
}

// mapExpr is one compiled MapExpr.
type mapExpr struct {
	src                porch.MapExpr
	keyExpr, valueExpr *celexpr.Program
}

// function is one pipeline entry of the template.
type function struct {
	node  *yaml.Node
	src   porch.FunctionTemplate
	exprs []mapExpr
}

// template compiles t, whose fields are at `field` (spec.targets[i].template).
// It returns nil when any expression does not compile.
func (c *compiler) template(t *porch.PackageVariantTemplate, field string) *template {
	if t == nil {
		return nil
	}
	before := len(c.errs)
	out := &template{src: t}
	if d := t.Downstream; d != nil {
		out.repoExpr = c.expr(c.withoutRepo, d.RepoExpr, field+".downstream.repoExpr")
		out.pkgExpr = c.expr(c.withRepo, d.PackageExpr, field+".downstream.packageExpr")
	}
	out.labels = c.mapExprs(t.LabelExprs, field+".labelExprs")
	out.annotations = c.mapExprs(t.AnnotationExprs, field+".annotationExprs")
	if pc := t.PackageContext; pc != nil {
		out.data = c.mapExprs(pc.DataExprs, field+".packageContext.dataExprs")
		for i := range pc.RemoveKeyExprs {
			f := fmt.Sprintf("%s.packageContext.removeKeyExprs[%d]", field, i)
			out.removeKeys = append(out.removeKeys, c.given(&pc.RemoveKeyExprs[i], f))
		}
	}
	for i, inj := range t.Injectors {
		out.injectors = append(out.injectors, c.expr(c.withRepo, inj.NameExpr, fmt.Sprintf("%s.injectors[%d].nameExpr", field, i)))
	}
	if p := t.Pipeline; p != nil {
		out.mutators = c.functions(p.Mutators, field+".pipeline.mutators")
		out.validators = c.functions(p.Validators, field+".pipeline.validators")
	}
	if len(c.errs) > before {
		return nil
	}
	return out
}

// given compiles an expression that sees the repository and, when given,
// must not be empty: Porch would fail to compile "" for every target.
// (Porch ignores an empty repoExpr, packageExpr or nameExpr, and so does
// expr.)
func (c *compiler) given(expr *string, field string) *celexpr.Program {
	if expr != nil && *expr == "" {
		c.errs = append(c.errs, decode.Error{Path: field, Msg: field + ": cannot compile \"\": empty expression"})
		return nil
	}
	return c.expr(c.withRepo, expr, field)
}

func (c *compiler) mapExprs(exprs []porch.MapExpr, field string) []mapExpr {
	out := make([]mapExpr, len(exprs))
	for i, me := range exprs {
		f := fmt.Sprintf("%s[%d]", field, i)
		out[i] = mapExpr{
			src:       me,
			keyExpr:   c.given(me.KeyExpr, f+".keyExpr"),
			valueExpr: c.given(me.ValueExpr, f+".valueExpr"),
		}
	}
	return out
}

func (c *compiler) functions(nodes []*yaml.Node, field string) []function {
	out := make([]function, len(nodes))
	for i, n := range nodes {
		f := fmt.Sprintf("%s[%d]", field, i)
		p, err := plain(n)
		if err != nil {
			c.errs = append(c.errs, decode.Error{Path: f, Msg: fmt.Sprintf("%s: %v", f, err)})
			continue
		}
		out[i].node = p
		// validate has decoded every entry without error already.
		_ = decode.Into(p, &out[i].src, decode.Options{}, "")
		out[i].exprs = c.mapExprs(out[i].src.ConfigMapExprs, f+".configMapExprs")
	}
	return out
}
