package fanout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/celexpr"
	"github.com/kptkit/kptkit/pkg/result"
)

// vars are the values a target's expressions see. It is a CEL activation:
// no map is built per target.
type vars struct {
	repoDefault, packageDefault ref.Val
	upstream, target            ref.Val
	repository                  ref.Val // nil until the repository is known
}

func (v *vars) ResolveName(name string) (any, bool) {
	var val ref.Val
	switch name {
	case VarRepoDefault:
		val = v.repoDefault
	case VarPackageDefault:
		val = v.packageDefault
	case VarUpstream:
		val = v.upstream
	case VarTarget:
		val = v.target
	case VarRepository:
		val = v.repository
	}
	return val, val != nil
}

func (v *vars) Parent() interpreter.Activation { return nil }

// renderer turns targets into PackageVariant specs, as Porch's
// renderPackageVariantSpec does. One goroutine uses one renderer: its
// builder is its own (see fork).
type renderer struct {
	set      *Set
	upstream ref.Val
	repos    *repositories
	b        *builder
}

// fork returns a renderer for another goroutine: the same set, upstream and
// repositories, its own builder.
func (rd *renderer) fork() *renderer {
	return &renderer{set: rd.set, upstream: rd.upstream, repos: rd.repos, b: &builder{}}
}

// child is what a target renders to: its downstream and its spec.
type child struct {
	target    *target
	repo, pkg string
	spec      *spec
}

// rendering is one target's rendering in progress: its variables and the
// problems found so far.
type rendering struct {
	t    *target
	set  *Set
	b    *builder
	vars vars
	rs   []result.Result
}

// exprField names a template field: list[index]suffix
// (template.labelExprs[0].valueExpr), or list alone when index < 0. It is
// written out only for a message: 60,000 evaluations, few failures.
type exprField struct {
	list   string
	index  int
	suffix string
}

func (f exprField) String() string {
	if f.index < 0 {
		return f.list
	}
	return fmt.Sprintf("%s[%d]%s", f.list, f.index, f.suffix)
}

// at names a template field that is no list entry.
func at(field string) exprField { return exprField{list: field, index: -1} }

// eval runs p for a template field; a failure is recorded against the
// target.
func (r *rendering) eval(p *celexpr.Program, f exprField) (string, bool) {
	s, err := p.Eval(&r.vars)
	if err != nil {
		field := f.String()
		r.rs = append(r.rs, r.set.errorf(r.t.field()+"."+field, "%s: %s: %v", r.t, field, err))
		return "", false
	}
	return s, true
}

// render makes the target's spec. A template failure is returned as results
// for this target alone.
func (rd *renderer) render(t *target, tpl *template) (*child, []result.Result) {
	c := &child{target: t, repo: t.repoDefault, pkg: t.packageDefault, spec: &spec{}}
	if tpl == nil {
		return c, nil
	}
	r := &rendering{t: t, set: rd.set, b: rd.b, vars: vars{
		repoDefault:    types.String(t.repoDefault),
		packageDefault: types.String(t.packageDefault),
		upstream:       rd.upstream,
		target:         rd.targetInput(t),
	}}
	src := tpl.src
	if d := src.Downstream; d != nil && d.Repo != nil && *d.Repo != "" {
		c.repo = *d.Repo
	}
	if tpl.repoExpr != nil {
		v, ok := r.eval(tpl.repoExpr, at("template.downstream.repoExpr"))
		if !ok {
			return nil, r.rs
		}
		c.repo = v
	}
	repo := rd.repos.byName[c.repo]
	if repo == nil {
		return nil, []result.Result{rd.set.errorf(t.field(), "%s: repository %q could not be loaded (no Repository %q in namespace %q in the ResourceList)",
			t, c.repo, c.repo, rd.set.Namespace())}
	}
	if t.object == repo {
		r.vars.repository = r.vars.target // one object, read once
	} else {
		r.vars.repository = newObject(repo.Header())
	}
	if d := src.Downstream; d != nil && d.Package != nil && *d.Package != "" {
		c.pkg = *d.Package
	}
	if tpl.pkgExpr != nil {
		c.pkg, _ = r.eval(tpl.pkgExpr, at("template.downstream.packageExpr"))
	}
	r.fill(c.spec, tpl)
	if len(r.rs) > 0 {
		return nil, r.rs
	}
	return c, nil
}

// fill renders every template field but the downstream into sp.
func (r *rendering) fill(sp *spec, tpl *template) {
	src := tpl.src
	if src.AdoptionPolicy != nil {
		sp.adoptionPolicy = *src.AdoptionPolicy
	}
	if src.DeletionPolicy != nil {
		sp.deletionPolicy = *src.DeletionPolicy
	}
	sp.labels = r.overlay(src.Labels, tpl.labels, "template.labelExprs")
	sp.annotations = r.overlay(src.Annotations, tpl.annotations, "template.annotationExprs")
	if pc := src.PackageContext; pc != nil {
		sp.data = r.overlay(pc.Data, tpl.data, "template.packageContext.dataExprs")
		sp.removeKeys = r.removeKeys(pc.RemoveKeys, tpl.removeKeys)
	}
	for i, inj := range src.Injectors {
		out := injector{group: inj.Group, version: inj.Version, kind: inj.Kind}
		if inj.Name != nil {
			out.name = *inj.Name
		}
		if p := tpl.injectors[i]; p != nil {
			out.name, _ = r.eval(p, exprField{"template.injectors", i, ".nameExpr"})
		}
		sp.injectors = append(sp.injectors, out)
	}
	sp.validators = r.functions(tpl.validators, "template.pipeline.validators")
	sp.mutators = r.functions(tpl.mutators, "template.pipeline.mutators")
}

// overlay copies the plain map and sets each expression's entry over it,
// sorted by key; an empty result is nil.
func (r *rendering) overlay(plain map[string]string, exprs []mapExpr, field string) []pair {
	if len(plain) == 0 && len(exprs) == 0 {
		return nil
	}
	out := make([]pair, 0, len(plain)+len(exprs))
	for k, v := range plain {
		out = append(out, pair{k, v})
	}
	for i, me := range exprs {
		var k, v string
		ok := true
		if me.src.Key != nil {
			k = *me.src.Key
		}
		if me.keyExpr != nil {
			k, ok = r.eval(me.keyExpr, exprField{field, i, ".keyExpr"})
		}
		if me.src.Value != nil {
			v = *me.src.Value
		}
		if me.valueExpr != nil {
			var vok bool
			v, vok = r.eval(me.valueExpr, exprField{field, i, ".valueExpr"})
			ok = ok && vok
		}
		if ok {
			out = append(out, pair{k, v})
		}
	}
	return lastOfEach(out)
}

// lastOfEach sorts pairs by key and keeps the last of each key, as a map
// they were set in one after another would.
func lastOfEach(ps []pair) []pair {
	slices.SortStableFunc(ps, func(a, b pair) int { return strings.Compare(a.key, b.key) })
	out := ps[:0]
	for i, p := range ps {
		if i+1 < len(ps) && ps[i+1].key == p.key {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// removeKeys returns the plain keys and the expressions' keys, de-duplicated
// and sorted.
func (r *rendering) removeKeys(plain []string, exprs []*celexpr.Program) []string {
	out := slices.Clone(plain)
	for i, p := range exprs {
		if k, ok := r.eval(p, exprField{"template.packageContext.removeKeyExprs", i, ""}); ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// functions renders pipeline entries: each a copy of the template's entry
// without configMapExprs, its configMap overlaid by their results.
func (r *rendering) functions(fns []function, field string) []*yaml.Node {
	var out []*yaml.Node
	for i, fn := range fns {
		cm := r.overlay(fn.src.ConfigMap, fn.exprs, fmt.Sprintf("%s[%d].configMapExprs", field, i))
		out = append(out, r.b.function(fn.node, cm))
	}
	return out
}

// targetInput is the `target` variable: the selected object, or the
// repository and package of a repositories entry.
func (rd *renderer) targetInput(t *target) ref.Val {
	if t.object != nil {
		return newObject(t.object.Header())
	}
	return types.NewStringStringMap(types.DefaultTypeAdapter, map[string]string{
		"repo":    t.repoDefault,
		"package": t.packageDefault,
	})
}
