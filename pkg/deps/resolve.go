package deps

import (
	"maps"
	"slices"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/deps/lifecycle"
	"github.com/kptkit/kptkit/pkg/deps/solver"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Root is something the package asks for: a PackageInstall, or an API one
// of its items uses.
type Root struct {
	Package string
	Repo    string // the catalog repository to take it from ("": the only one)
	Range   string // "" is no range
	// By names what asks, for messages: `PackageInstall/cm`, `Certificate/web`.
	By string
	// APIs are set for a discovered root: the version chosen must provide
	// them all.
	APIs   []discover.API
	Header *resourcelist.Header
}

// Options tune the resolution.
type Options struct {
	AllowUpgrades bool
	Prereleases   bool
	// Environment lists the capabilities the environment provides.
	Environment []string
	Policy      *lifecycle.Policy
	// Budget bounds the search (solver steps); 0 is solver.DefaultBudget.
	Budget int
	// Providers chooses, per API group, the package that provides the
	// group's APIs when several do (ResolveDeps.providers).
	Providers map[string]string
}

// Request is everything a resolution needs.
type Request struct {
	Catalog   *Catalog
	Installed map[string]*Installed
	Roots     []Root
	Ranges    *Ranges
	// Upgrade is the package an `upgrade` operation moves: it may move even
	// when AllowUpgrades is false.
	Upgrade string
	Options
	forced    map[string]string // package → why a missing capability switched it off
	providers *Providers        // made on first use
}

// chooser picks providers for this request: installed packages, then
// Options.Providers, then the packages the roots ask for by name.
func (r *Request) chooser() Chooser {
	var asked []string
	for _, root := range r.Roots {
		if len(root.APIs) == 0 {
			asked = append(asked, root.Package)
		}
	}
	return Chooser{Installed: r.Installed, Providers: r.Providers, Asked: asked}
}

// index returns what the catalog's packages provide.
func (r *Request) index() *Providers {
	if r.providers == nil {
		r.providers = IndexProviders(r.Catalog)
	}
	return r.providers
}

// Plan is the outcome: the steps in install order and the results that
// explain them. Steps is nil when the resolution failed (Results then hold
// the errors).
type Plan struct {
	Steps          []v1alpha1.PlanStep
	UninstallOrder []string
	// Repos maps each package to install or upgrade to its repository.
	Repos map[string]string
	// Declared are the parameters the chosen version of each package
	// declares; Context, once parameters are resolved, the package context
	// data of each package to install or upgrade.
	Declared map[string][]v1alpha1.Parameter
	Context  map[string]map[string]string
	Results  []result.Result
	// Search is the solver's work for the plan: steps and conflicts.
	Search struct{ Steps, Conflicts int }
}

// Failed reports whether the plan could not be made.
func (p *Plan) Failed() bool { return result.List(p.Results).HasError() }

// Resolve finds the versions to install: every constraint on a package
// (the roots', the dependencies' of chosen versions, the ranges installed
// packages hold) intersected, the highest version inside all of them
// preferred, backtracking until all hold. Packages whose capabilities are
// missing and that may do without are switched off and the search is run
// again, until the plan holds; a missing capability that is not softened
// is an error all the same, also for a package switched off for another
// (Hub's rule: failing any requirement that is not optional fails).
//
// Every problem is reported at once: when the search fails, the roots the
// clash involves are set aside and the rest is resolved again, so that
// further clashes, missing capabilities, APIs without a provider, and the
// warnings and skips of the other packages are reported too. A plan with
// any error has no steps.
func Resolve(req Request) *Plan {
	if req.Ranges == nil {
		req.Ranges = NewRanges()
	}
	if req.Catalog == nil {
		req.Catalog = NewCatalog()
	}
	pins, rs := pinRepos(req.Roots)
	if len(rs) > 0 {
		return &Plan{Results: rs}
	}
	req.forced = map[string]string{}
	req.Roots = slices.Clone(req.Roots)
	var failures []result.Result
	for {
		p := newProblem(&req, pins)
		sol, fail := p.solve()
		if fail != nil {
			rs, roots := p.failure(fail)
			failures = append(failures, rs...)
			if len(roots) == 0 {
				return &Plan{Results: failures}
			}
			req.Roots = dropRoots(req.Roots, roots)
			continue
		}
		picks := p.picks(sol)
		edges, more, bad, held := p.capabilities(picks, sol)
		failures = append(failures, held...)
		if len(more) > 0 {
			maps.Copy(req.forced, more)
			continue
		}
		bad = append(bad, p.apiProblems(picks)...)
		plan := p.plan(picks, edges)
		if len(failures) > 0 || result.List(bad).HasError() || plan.Failed() {
			out := slices.Concat(failures, bad)
			for _, r := range plan.Results {
				if r.Severity != result.SeverityInfo {
					out = append(out, r)
				}
			}
			return &Plan{Results: out}
		}
		plan.Results = append(plan.Results, bad...)
		plan.Search.Steps, plan.Search.Conflicts = sol.Steps, sol.Conflicts
		return plan
	}
}

// dropRoots removes the roots at the given indexes.
func dropRoots(roots []Root, drop []int) []Root {
	out := make([]Root, 0, len(roots))
	for i, r := range roots {
		if !slices.Contains(drop, i) {
			out = append(out, r)
		}
	}
	return out
}

// pinRepos collects the repositories PackageInstalls choose; two choices
// for one package are an error.
func pinRepos(roots []Root) (map[string]string, []result.Result) {
	pins := map[string]string{}
	by := map[string]Root{}
	var rs []result.Result
	for _, r := range roots {
		if r.Repo == "" {
			continue
		}
		if prev, ok := pins[r.Package]; ok && prev != r.Repo {
			rs = append(rs, attach(result.Errorf("%s takes %s from repository %q but %s from %q: choose one",
				r.By, r.Package, r.Repo, by[r.Package].By, prev), r.Header, "spec.repo"))
			continue
		}
		pins[r.Package], by[r.Package] = r.Repo, r
	}
	return pins, rs
}

// attach points a result at an item, when there is one.
func attach(r result.Result, h *resourcelist.Header, field string) result.Result {
	if h == nil {
		return r
	}
	return h.Attach(r.WithField(field))
}

// solve runs the solver over the roots, the ranges installed packages hold
// and extra constraints.
func (p *problem) solve(extra ...*solver.Incompat) (*solver.Solution, *solver.Failure) {
	if p.initial == nil {
		for i, r := range p.req.Roots {
			in := p.root(r)
			p.rootIndex[in.ID] = i
			p.initial = append(p.initial, in)
		}
		p.initial = append(p.initial, p.holders()...)
	}
	p.drain() // the packages made so far bring their own constraints from the start
	ins := append(append(slices.Clip(p.initial), p.own...), extra...)
	return solver.Solve(solver.Problem{Source: p, Root: 0, Incompats: ins, Budget: p.req.Budget})
}

// root is the root's need of a package: within the range, providing the API
// that made it a root, or skipped when it may be.
func (p *problem) root(r Root) *solver.Incompat {
	d := p.node(r.Package)
	n := p.nodes[d]
	m := p.mask(d, r.Range)
	kind := kindRoot
	for _, a := range r.APIs {
		kind = kindAPI
		provides := solver.None(n.size())
		for i, v := range n.cands {
			if v.ProvidesAPI(a.Group, a.Version, a.Kind, a.Resource) {
				provides = provides.With(i)
			}
		}
		m = m.And(provides)
		n.needed = n.needed.And(provides)
	}
	if n.skip >= 0 {
		m = m.With(n.skip)
	}
	in := p.external(constraint{kind: kind, target: d, by: r.By, rng: r.Range, apis: r.APIs, header: r.Header},
		solver.Require(0, solver.All(1)), solver.Forbid(d, m))
	p.roots[d] = append(p.roots[d], in.ID)
	return in
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
