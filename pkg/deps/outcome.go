package deps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps/solver"
	"github.com/kptkit/kptkit/pkg/result"
)

// demand is what the plan asks of one package: who needs it, and the
// ranges put on it (with the candidates each allows).
type demand struct {
	needers []string // roots and chosen packages that need it
	apis    []string // the items it was discovered for, and what it provides them
	ranged  []string // `who (range)` of every range on it
	sets    []solver.Set
}

// demandOn gathers the constraints in force on a chosen package: the
// roots', the chosen versions' dependencies, and the ranges held by
// installed packages that stay.
func (p *problem) demandOn(id int, sol *chosen) demand {
	var d demand
	n := p.nodes[id]
	add := func(who, rng string, set solver.Set, need bool) {
		if need && !slices.Contains(d.needers, who) {
			d.needers = append(d.needers, who)
		}
		if rng != "" || set != nil {
			d.ranged = append(d.ranged, fmt.Sprintf("%s (%s)", who, rangeText(rng)))
			if set == nil {
				set = p.mask(id, rng)
			}
			d.sets = append(d.sets, set)
		}
	}
	for _, c := range p.roots[id] {
		con := p.cons[c]
		if con.kind == kindAPI && con.rng == "" {
			d.needers = append(d.needers, p.item(con))
			d.apis = append(d.apis, p.item(con))
			continue
		}
		add(con.by, con.rng, nil, true)
	}
	for _, k := range sol.dependants[id] {
		for _, dep := range p.depsOf(k.id, k.ver) {
			if dep.Package != n.name {
				continue
			}
			add(k.n.name, dep.Version, nil, true)
			if dep.Reason != "" {
				i := slices.Index(d.needers, k.n.name)
				d.needers[i] = fmt.Sprintf("%s (%s)", k.n.name, dep.Reason)
			}
		}
	}
	for _, h := range p.holdersOn[id] {
		if _, chosen := sol.byID[h.pkg]; chosen || h.rng == "" {
			continue // chosen ones count through their dependencies
		}
		set := p.mask(id, h.rng)
		if n.installed >= 0 {
			set = set.With(n.installed)
		}
		add(h.name, h.rng, set, false)
	}
	return d
}

// keptText lists the ranges the installed version satisfies, and those it
// was already outside of (installed packages' ranges never move it).
func (d demand) keptText(v int) string {
	var in, out []string
	for i, r := range d.ranged {
		if d.sets[i].Has(v) {
			in = append(in, r)
		} else {
			out = append(out, r)
		}
	}
	s := ""
	if len(in) > 0 {
		s += " and satisfies " + strings.Join(in, ", ")
	}
	if len(out) > 0 {
		s += "; it was already outside " + strings.Join(out, ", ")
	}
	return s
}

// chosen is a solution as the plan reads it: each pick by id, and who
// depends on whom.
type chosen struct {
	byID       map[int]pick
	dependants map[int][]pick // id → the chosen (not skipped) packages whose version depends on it, by name
}

func (p *problem) chosenOf(picks []pick) *chosen {
	c := &chosen{byID: map[int]pick{}, dependants: map[int][]pick{}}
	for _, k := range picks {
		c.byID[k.id] = k
	}
	for _, k := range picks { // picks are sorted by name, so dependants are too
		if k.ver == nil {
			continue
		}
		var seen []int
		for _, d := range p.depsOf(k.id, k.ver) {
			id, ok := p.byName[d.Package]
			if ok && id != k.id && !slices.Contains(seen, id) {
				seen = append(seen, id)
				c.dependants[id] = append(c.dependants[id], k)
			}
		}
	}
	return c
}

// step is one package's step of the plan and the result that reports it.
func (p *problem) step(k pick, sol *chosen) (v1alpha1.PlanStep, result.Result) {
	s := v1alpha1.PlanStep{Package: k.n.name, RequiredBy: []string{}}
	for _, q := range sol.dependants[k.id] {
		s.RequiredBy = append(s.RequiredBy, q.n.name)
	}
	if k.ver == nil {
		s.Action, s.Reason = v1alpha1.ActionSkip, p.whySkipped(k)
		return s, result.Warningf("%s: skip: %s", k.n.name, s.Reason)
	}
	s.Version = k.ver.Raw
	d := p.demandOn(k.id, sol)
	switch {
	case k.v == k.n.installed:
		s.Action = v1alpha1.ActionKeep
		s.Reason = fmt.Sprintf("fulfilled: %s is installed", s.Version) + d.keptText(k.v)
		if len(d.apis) > 0 {
			s.Reason += "; needed by " + strings.Join(d.apis, ", ")
		}
	case k.n.name == p.req.Upgrade:
		s.Action = v1alpha1.ActionUpgrade
		s.Reason = fmt.Sprintf("upgraded from %s to %s on request", k.n.cands[k.n.installed].Raw, s.Version)
	case k.n.installed >= 0 && len(d.needers) == 0 && len(d.ranged) == 0:
		s.Action = v1alpha1.ActionUpgrade
		s.Reason = fmt.Sprintf("updated from %s to %s%s", k.n.cands[k.n.installed].Raw, s.Version, p.heldBack(k, sol))
	case k.n.installed >= 0:
		s.Action = v1alpha1.ActionUpgrade
		from := k.n.cands[k.n.installed].Raw
		s.Reason = fmt.Sprintf("conflict resolvable by updating %s from %s to %s: %s", k.n.name, from, s.Version, p.chosenText(k, d))
	default:
		s.Action = v1alpha1.ActionInstall
		s.Reason = p.chosenText(k, d)
	}
	return s, result.Infof("%s: %s %s: %s", k.n.name, s.Action, s.Version, s.Reason)
}

// chosenText says why this version: the latest, the highest, or the
// highest inside every range (and, when a higher one inside them all was
// passed over, that it did not fit the rest of the plan).
func (p *problem) chosenText(k pick, d demand) string {
	if len(d.ranged) == 0 {
		what := "latest version"
		if best := k.n.latestNeeded(); best >= 0 && best != k.v {
			what = fmt.Sprintf("highest version that fits the rest of the plan (%s does not)", k.n.cands[best].Raw)
		}
		if len(d.needers) == 0 {
			return what
		}
		return what + ", needed by " + strings.Join(d.needers, ", ")
	}
	in := k.n.real()
	for _, s := range d.sets {
		in = in.And(s)
	}
	text := "highest version that satisfies " + strings.Join(d.ranged, ", ")
	if first := in.First(); first >= 0 && first < k.v && first != k.n.installed {
		text += fmt.Sprintf(" and fits the rest of the plan (%s does not)", k.n.cands[first].Raw)
	}
	if len(d.apis) > 0 {
		text += "; needed by " + strings.Join(d.apis, ", ")
	}
	return text
}

// heldBack explains an upgrade nobody asked for: at its installed version
// the package held a range that the plan's version of a dependency leaves.
func (p *problem) heldBack(k pick, sol *chosen) string {
	iv := k.n.cands[k.n.installed].Raw
	for _, d := range k.n.cands[k.n.installed].Deps {
		dk, ok := sol.byID[p.byName[d.Package]]
		if ok && dk.ver != nil && !p.mask(dk.id, d.Version).Has(dk.v) {
			return fmt.Sprintf(": %s %s holds %s (%s), which excludes %s %s", k.n.name, iv, dk.n.name, rangeText(d.Version), dk.n.name, dk.ver.Raw)
		}
	}
	return ""
}

// whySkipped explains a skip: the capability or parameter that switched the
// package off, or why it could not be installed (an optional package that
// failed softly).
func (p *problem) whySkipped(k pick) string {
	if why := p.req.forced[k.n.name]; why != "" {
		return why
	}
	if path, val := p.req.Policy.SwitchedOff(k.n.name); path != "" {
		return fmt.Sprintf("parameter %s is %s", path, val)
	}
	in := p.external(constraint{kind: kindForced, target: k.id, note: "it is not skipped"}, solver.Require(k.id, solver.Of(k.n.size(), k.n.skip)))
	_, fail := p.solve(in)
	switch {
	case fail == nil:
		return "optional package, skipped"
	case fail.Exhausted:
		return "optional package that could not be resolved within the step budget"
	}
	core := solver.Minimize(p.Size, 0, solver.Leaves(fail.Cause), p.req.Budget)
	core = slices.DeleteFunc(core, func(c *solver.Incompat) bool { return c == in })
	return "optional package that cannot be installed: " + p.render(p.leaves(core)).text
}
