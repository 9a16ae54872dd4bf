package deps

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/deps/solver"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// ckind is what a constraint is, in the order explanations list them.
type ckind int

const (
	kindRoot      ckind = iota // a PackageInstall's range
	kindAPI                    // an item's API: the version must provide it
	kindDep                    // a package version's dependency
	kindUses                   // a package version uses an API: its provider must provide it
	kindHolder                 // a range an installed package holds
	kindPinned                 // installed, allowUpgrades false
	kindDowngrade              // installed: never goes down
	kindParam                  // switched off by a parameter
	kindForced                 // switched off: a capability is missing
	kindNone                   // the solver found no candidate left
)

// constraint is what an external incompatibility stands for: who put which
// range on which package.
type constraint struct {
	kind   ckind
	target int        // the package constrained
	by     string     // who: `PackageInstall/cm`, a package name
	byPkg  int        // the package that imposes it (dependencies, holders)
	vers   solver.Set // the imposer's versions that carry a dependency
	rng    string
	apis   []discover.API
	note   string
	header *resourcelist.Header
}

// item renders a constraint as one entry of "no version of D satisfies
// <item>, <item>": `P (^1.2)`, `X (<1.0)`, `installed 1.0.0 (allowUpgrades
// is false)`.
func (p *problem) item(c constraint) string { return p.itemWithin(c, nil) }

// itemWithin renders a constraint; a dependency names the versions of its
// imposer that carry it unless they are all the imposer may be (within, by
// package: what the other constraints allow; nil: every version).
func (p *problem) itemWithin(c constraint, within map[int]solver.Set) string {
	switch c.kind {
	case kindRoot, kindHolder:
		return fmt.Sprintf("%s (%s)", c.by, rangeText(c.rng))
	case kindAPI:
		apis := make([]string, len(c.apis))
		for i, a := range c.apis {
			apis[i] = a.String()
		}
		if c.rng != "" {
			return fmt.Sprintf("%s (%s, providing %s)", c.by, c.rng, strings.Join(apis, ", "))
		}
		return fmt.Sprintf("%s (provides %s)", c.by, strings.Join(apis, ", "))
	case kindDep, kindUses:
		by := c.by
		imp := p.nodes[c.byPkg]
		may, ok := within[c.byPkg]
		if !ok {
			may = imp.real()
		}
		if !may.And(imp.real()).SubsetOf(c.vers) {
			by += " " + versionsText(imp, c.vers)
		}
		if c.kind == kindUses {
			return fmt.Sprintf("%s (uses %s)", by, c.apis[0])
		}
		return fmt.Sprintf("%s (%s)", by, rangeText(c.rng))
	case kindPinned:
		return fmt.Sprintf("installed %s (allowUpgrades is false)", c.rng)
	case kindDowngrade:
		return fmt.Sprintf("installed %s (never downgraded)", c.rng)
	case kindNone:
		return "no version left"
	}
	return c.note
}

func rangeText(r string) string {
	if r == "" {
		return "any version"
	}
	return r
}

// versionsText names some versions of a package: `2.0.0`, `2.0.0, 1.9.0`,
// `2.0.0, 1.9.0, 1.8.0 and 4 more`.
func versionsText(n *node, set solver.Set) string {
	var vs []string
	for _, i := range set.Members() {
		if v := n.version(i); v != nil {
			vs = append(vs, v.Raw)
		}
	}
	if len(vs) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(vs[:3], ", "), len(vs)-3)
	}
	return strings.Join(vs, ", ")
}

// leaf is a constraint of an explanation, with the incompatibility it came as.
type leaf struct {
	constraint
	in *solver.Incompat
}

func (p *problem) leaves(ins []*solver.Incompat) []leaf {
	out := make([]leaf, 0, len(ins))
	for _, in := range ins {
		if in.ID == solver.NoVersions {
			out = append(out, leaf{constraint: constraint{kind: kindNone, target: in.Terms[0].Pkg}, in: in})
			continue
		}
		out = append(out, leaf{constraint: p.cons[in.ID], in: in})
	}
	return out
}

// explanation is a rendered clash: its text, the item to point the result
// at, and the packages the clash lands on.
type explanation struct {
	text   string
	header *resourcelist.Header
	clash  []int
	leaves []leaf
}

// render explains a set of clashing constraints: for each package the clash
// lands on (one no other constraint of the set is imposed by), "no version
// of D satisfies A (r), B (r)"; for the packages that lead there, what they
// must satisfy.
func (p *problem) render(ls []leaf) explanation {
	e := explanation{leaves: ls}
	imposers := map[int]bool{}
	targets := map[int][]leaf{}
	for _, l := range ls {
		if l.kind == kindDep || l.kind == kindUses || l.kind == kindHolder {
			imposers[l.byPkg] = true
		}
		targets[l.target] = append(targets[l.target], l)
		if e.header == nil && l.header != nil {
			e.header = l.header
		}
	}
	within := map[int]solver.Set{}
	for t, ls := range targets {
		may := p.nodes[t].real()
		for _, l := range ls {
			may = may.And(allowedBy(l, p.nodes[t]))
		}
		within[t] = may
	}
	var clauses, support []string
	for _, t := range p.byNameOrder(targets) {
		items := p.items(targets[t], false, within)
		if !imposers[t] || len(targets) == 1 {
			e.clash = append(e.clash, t)
			clauses = append(clauses, p.clause(t, items))
			continue
		}
		if items = p.items(targets[t], true, within); len(items) > 0 {
			support = append(support, fmt.Sprintf("%s must satisfy %s", p.nodes[t].name, strings.Join(items, ", ")))
		}
	}
	if len(clauses) == 0 { // the constraints lead round in a circle: name them all
		support = nil
		for _, t := range p.byNameOrder(targets) {
			e.clash = append(e.clash, t)
			clauses = append(clauses, p.clause(t, p.items(targets[t], false, within)))
		}
	}
	e.text = strings.Join(clauses, "; ")
	if len(support) > 0 {
		e.text += ", and " + strings.Join(support, ", and ")
	}
	return e
}

func (p *problem) clause(t int, items []string) string {
	n := p.nodes[t]
	if n.missing != "" {
		return fmt.Sprintf("%s is needed by %s, but %s", n.name, strings.Join(items, ", "), n.missing)
	}
	return fmt.Sprintf("no version of %s satisfies %s", n.name, strings.Join(items, ", "))
}

// items renders the constraints on one package, in kind order; without
// the ones that only say it is needed when trivial is set.
func (p *problem) items(ls []leaf, dropTrivial bool, within map[int]solver.Set) []string {
	ls = slices.Clone(ls)
	slices.SortStableFunc(ls, func(a, b leaf) int { return cmp.Compare(a.kind, b.kind) })
	var out []string
	for _, l := range ls {
		if dropTrivial && (l.kind == kindRoot || l.kind == kindDep) && l.rng == "" {
			continue
		}
		if s := p.itemWithin(l.constraint, within); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (p *problem) byNameOrder(m map[int][]leaf) []int {
	ids := make([]int, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int) int { return cmp.Compare(p.nodes[a].name, p.nodes[b].name) })
	return ids
}

// failure turns a failed search into error results: the smallest set of
// constraints that clash, in Glasskube's words where they fit.
// It also returns the roots (indexes into Request.Roots) the clash involves.
func (p *problem) failure(f *solver.Failure) ([]result.Result, []int) {
	if f.Exhausted {
		msg := fmt.Sprintf("gave up after %d steps (the step budget): the search is too large to finish", f.Steps)
		if f.Cause != nil {
			msg += "; the last conflict it learned: " + p.terms(f.Cause) + " cannot all hold"
		}
		return []result.Result{result.Errorf("%s", msg)}, nil
	}
	core := solver.Minimize(p.Size, 0, solver.Leaves(f.Cause), p.req.Budget)
	var roots []int
	for _, in := range core {
		if i, ok := p.rootIndex[in.ID]; ok && in.ID != solver.NoVersions {
			roots = append(roots, i)
		}
	}
	e := p.render(p.leaves(core))
	return []result.Result{attach(result.Errorf("%s%s", p.glasskube(e), e.text), e.header, "spec.version")}, roots
}

// glasskube names the installed-package cases of Glasskube's decision tree
// when the clash is on one installed package D at DV: "conflict not
// resolvable because P does not support D DV yet" when P's range lies
// below DV; "conflict resolvable by updating D to v" when allowing upgrades
// finds a plan.
func (p *problem) glasskube(e explanation) string {
	if len(e.clash) != 1 {
		return ""
	}
	t := e.clash[0]
	n := p.nodes[t]
	if n.installed < 0 {
		return ""
	}
	pinned := false
	var behind []string
	for _, l := range e.leaves {
		if l.target != t {
			continue
		}
		switch l.kind {
		case kindPinned:
			pinned = true
		case kindRoot, kindAPI, kindDep, kindUses, kindHolder:
			if p.onlyBelow(l, n) && !slices.Contains(behind, l.by) {
				behind = append(behind, l.by)
			}
		}
	}
	iv := n.cands[n.installed].Raw
	switch {
	case len(behind) > 0:
		verb := "does"
		if len(behind) > 1 {
			verb = "do"
		}
		return fmt.Sprintf("%s: conflict not resolvable because %s %s not support %s %s yet: ", n.name, strings.Join(behind, " and "), verb, n.name, iv)
	case pinned:
		if v := p.upgradeFinds(n.name); v != "" {
			return fmt.Sprintf("%s: conflict resolvable by updating %s to %s (set allowUpgrades: true): ", n.name, n.name, v)
		}
	}
	return ""
}

// terms renders what a learned incompatibility says cannot all hold:
// `a at 2.0.0, 1.0.0; b not at 3.0.0`.
func (p *problem) terms(in *solver.Incompat) string {
	var parts []string
	for _, t := range in.Terms {
		n := p.nodes[t.Pkg]
		switch {
		case t.Pkg == 0:
			continue
		case t.Positive:
			parts = append(parts, n.name+" at "+versionsText(n, t.Set))
		default:
			parts = append(parts, n.name+" not at "+versionsText(n, t.Set))
		}
	}
	if len(parts) == 0 {
		return "the requests"
	}
	return strings.Join(parts, "; ")
}

// onlyBelow reports whether a constraint allows only versions below the
// installed one.
func (p *problem) onlyBelow(l leaf, n *node) bool {
	return allowedBy(l, n).And(n.real()).First() > n.installed
}

// allowedBy returns the candidates of its target a constraint allows.
func allowedBy(l leaf, n *node) solver.Set {
	for _, t := range l.in.Terms {
		if t.Pkg != l.target {
			continue
		}
		if t.Positive {
			return solver.All(n.size()).Minus(t.Set)
		}
		return t.Set
	}
	return solver.All(n.size())
}

// upgradeFinds resolves again with upgrades allowed and returns the version
// the package would move to, or "".
func (p *problem) upgradeFinds(name string) string {
	req := *p.req
	req.AllowUpgrades = true
	q := newProblem(&req, p.pins)
	sol, fail := q.solve()
	if fail != nil {
		return ""
	}
	id := q.byName[name]
	if v := q.nodes[id].version(sol.Chosen[id]); v != nil {
		return v.Raw
	}
	return ""
}
