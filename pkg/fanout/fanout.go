package fanout

import (
	"fmt"

	"github.com/kptkit/kptkit/pkg/celexpr"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// minRun is the fewest targets worth a goroutine of their own.
const minRun = 256

// Function is fan-out-variants.
var Function = krmfn.Function{Name: "fan-out-variants", Run: Run}

// Run reads the PackageVariantSet from the functionConfig and expands it.
func Run(rl *resourcelist.ResourceList, _ krmfn.Env) error {
	s, rs := SetFrom(krmfn.ConfigOf(rl), rl)
	rl.AddResults(rs...)
	if s == nil {
		return nil
	}
	rl.AddResults(Expand(rl, s, celexpr.DefaultCostLimit)...)
	return nil
}

// desired is a child the set wants: its identifier, name and spec.
type desired struct {
	*child
	id, name string
}

// Expand makes one PackageVariant per target of the set and reconciles them
// with the set's existing children in rl. costLimit bounds each expression
// evaluation. Problems come back as results; a failing target fails alone,
// but then no child is deleted.
func Expand(rl *resourcelist.ResourceList, s *Set, costLimit uint64) []result.Result {
	comp, err := newCompiler(costLimit)
	if err != nil {
		return []result.Result{s.errorf("", "%v", err)}
	}
	templates := make([]*template, len(s.Spec.Targets))
	for i, t := range s.Spec.Targets {
		templates[i] = comp.template(t.Template, fmt.Sprintf("spec.targets[%d].template", i))
	}
	rs := s.errorResults(comp.errs)
	// The Repositories first: their headers are kept, and read once.
	repos := newRepositories(rl, s)
	pr, urs := upstreamRevision(rl, s)
	if len(urs) > 0 {
		return append(rs, urs...)
	}
	targets, trs := unroll(rl, s, repos)
	rs = append(rs, trs...)
	// Knowing how large the values can be, expressions that provably stay
	// within the cost limit run without counting their cost.
	comp.bound(sizeBound(s, pr, repos.all, targets))
	b := &builder{}
	rd := &renderer{set: s, upstream: upstreamInput(s, pr), repos: repos}
	want, wrs := render(targets, templates, rd)
	rs = append(rs, wrs...)
	failed := len(comp.errs) > 0 || result.List(wrs).HasError()
	return append(rs, reconcile(rl, s, want, failed, b)...)
}

// render renders every target whose template compiled and names its child,
// the targets shared among goroutines; two targets with one name are an
// error naming both.
func render(targets []target, templates []*template, rd *renderer) ([]*desired, []result.Result) {
	type rendered struct {
		d  *desired
		rs []result.Result
	}
	var (
		s    = rd.set
		out  = make([]rendered, len(targets))
		w    = parallel.Workers(len(targets), minRun)
		each = make([]*renderer, w)
	)
	for i := range each {
		each[i] = rd.fork()
	}
	parallel.Do(len(targets), w, func(w, i int) {
		t := &targets[i]
		tpl := templates[t.index]
		if s.Spec.Targets[t.index].Template != nil && tpl == nil {
			return // its compile errors are reported already
		}
		c, crs := each[w].render(t, tpl)
		if len(crs) > 0 {
			out[i].rs = crs
			return
		}
		d, err := name(s, c)
		if err != nil {
			out[i].rs = []result.Result{s.errorf(downstreamField(t, tpl), "%s: %v", t, err)}
			return
		}
		out[i].d = d
	})
	var (
		want   []*desired
		rs     []result.Result
		byName = map[string]*desired{}
	)
	for i, o := range out {
		rs = append(rs, o.rs...)
		d := o.d
		if d == nil {
			continue
		}
		if prev := byName[d.name]; prev != nil {
			rs = append(rs, s.errorf(targets[i].field(), "%s and %s both make PackageVariant %q (downstream repo %q package %q): give each target its own downstream",
				prev.target, d.target, d.name, d.repo, d.pkg))
			continue
		}
		byName[d.name] = d
		want = append(want, d)
	}
	return want, rs
}

// name checks a child's downstream and names it.
func name(s *Set, c *child) (*desired, error) {
	if err := checkRepo(c.repo); err != nil {
		return nil, err
	}
	if err := checkPackage(c.pkg); err != nil {
		return nil, err
	}
	id := Identifier(s.Metadata.Name, c.repo, c.pkg)
	n, err := Name(id)
	if err != nil {
		return nil, fmt.Errorf("cannot name its PackageVariant: %w", err)
	}
	return &desired{child: c, id: id, name: n}, nil
}

// downstreamField is where a target's downstream comes from.
func downstreamField(t *target, tpl *template) string {
	if tpl != nil && tpl.src.Downstream != nil {
		return t.field() + ".template.downstream"
	}
	return t.field()
}
