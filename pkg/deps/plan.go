package deps

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps/solver"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// pick is a package of the solution and the candidate chosen for it.
type pick struct {
	id  int
	n   *node
	v   int
	ver *Version // nil when skipped
}

func (p *problem) picks(sol *solver.Solution) []pick {
	var out []pick
	for id, v := range sol.Chosen {
		n := p.nodes[id]
		out = append(out, pick{id: id, n: n, v: v, ver: n.version(v)})
	}
	slices.SortFunc(out, func(a, b pick) int { return cmp.Compare(a.n.name, b.n.name) })
	return out
}

// capabilities checks that every chosen package's required capabilities
// come from the environment, an installed package, or a package of the
// plan (which is then put before it). A package that may do without one is
// switched off (more). A requirement that is not softened is an error
// (bad) whatever else the package may do without, as Hub has it: an error
// about a package switched off is held, for the search that follows leaves
// the package out.
func (p *problem) capabilities(picks []pick, sol *solver.Solution) (edges [][2]int, more map[string]string, bad, held []result.Result) {
	providers := map[string][]int{}
	for _, k := range picks {
		if k.ver != nil {
			for _, c := range k.ver.Provides {
				providers[c] = append(providers[c], k.id)
			}
		}
	}
	have := p.installedCapabilities(sol)
	for _, c := range p.req.Environment {
		have[c] = true
	}
	more = map[string]string{}
	for _, k := range picks {
		if k.ver == nil {
			continue
		}
		var missing []string
		for _, c := range k.ver.Requires {
			provs := slices.DeleteFunc(slices.Clone(providers[c]), func(id int) bool { return id == k.id })
			for _, pr := range provs {
				edges = append(edges, [2]int{pr, k.id})
			}
			if !have[c] && len(provs) == 0 {
				missing = append(missing, c)
			}
		}
		soft, warned, hard := p.missing(k, missing)
		bad = append(bad, warned...)
		if soft == "" {
			bad = append(bad, hard...)
			continue
		}
		more[k.n.name] = soft
		held = append(held, hard...)
	}
	return edges, more, bad, held
}

// missing sorts the capabilities package k requires and nothing provides:
// the first one it may do without (soft: why it is switched off), the
// softened ones it keeps, being installed (warned), and the others
// (hard: errors).
func (p *problem) missing(k pick, caps []string) (soft string, warned, hard []result.Result) {
	for _, c := range caps {
		why := fmt.Sprintf("requires capability %q, which no package before it provides and the environment does not", c)
		switch s := p.req.Policy.Softened(c, k.n.name); {
		case s != "" && k.n.skip >= 0:
			if soft == "" {
				soft = why + " (optional: " + s + ")"
			}
		case s != "": // installed packages are never skipped
			warned = append(warned, attach(result.Warningf("%s %s %s (optional: %s); it is installed, so it stays", k.n.name, k.ver.Raw, why, s), p.rootHeader(k.id), ""))
		default:
			hard = append(hard, attach(result.Errorf("%s %s %s: add a package that provides it, list it in environment, or make it optional with lifecycle.requires.optional %q",
				k.n.name, k.ver.Raw, why, c+":"+k.n.name), p.rootHeader(k.id), ""))
		}
	}
	return soft, warned, hard
}

// installedCapabilities are the capabilities installed packages the plan
// does not touch provide (their catalog version's).
func (p *problem) installedCapabilities(sol *solver.Solution) map[string]bool {
	have := map[string]bool{}
	for name := range p.req.Installed {
		if id, ok := p.byName[name]; ok {
			if _, chosen := sol.Chosen[id]; chosen {
				continue
			}
		}
		if v := p.req.installedVersion(name, p.pins[name]); v != nil {
			for _, c := range v.Provides {
				have[c] = true
			}
		}
	}
	return have
}

// rootHeader returns the item that asked for a package, if one did.
func (p *problem) rootHeader(id int) *resourcelist.Header {
	for _, c := range p.roots[id] {
		if h := p.cons[c].header; h != nil {
			return h
		}
	}
	return nil
}

// plan turns a solution's picks into steps in install order, with Glasskube's
// outcome for each package, and refuses cycles.
func (p *problem) plan(picks []pick, capEdges [][2]int) *Plan {
	c := p.chosenOf(picks)
	order, cycles := p.installOrder(picks, c, capEdges)
	plan := &Plan{Repos: map[string]string{}, Declared: map[string][]v1alpha1.Parameter{}, Steps: []v1alpha1.PlanStep{}, UninstallOrder: []string{}}
	if len(cycles) > 0 {
		plan.Steps, plan.UninstallOrder = nil, nil
		for _, cy := range cycles {
			plan.Results = append(plan.Results, result.Errorf("dependency cycle: %s", cy))
		}
		return plan
	}
	for _, id := range order {
		k := c.byID[id]
		step, r := p.step(k, c)
		plan.Steps = append(plan.Steps, step)
		plan.Results = append(plan.Results, attach(r, p.rootHeader(id), ""))
		if (step.Action == v1alpha1.ActionInstall || step.Action == v1alpha1.ActionUpgrade) && k.n.pkg != nil {
			plan.Repos[step.Package] = k.n.pkg.Repo
		}
		if k.ver != nil && len(k.ver.Params) > 0 {
			plan.Declared[step.Package] = k.ver.Params
		}
	}
	for i := len(plan.Steps) - 1; i >= 0; i-- {
		if plan.Steps[i].Action != v1alpha1.ActionSkip {
			plan.UninstallOrder = append(plan.UninstallOrder, plan.Steps[i].Package)
		}
	}
	return plan
}

// installOrder puts every chosen package after what it depends on and the
// providers of the capabilities it requires; skipped packages install
// nothing and come last, by name.
func (p *problem) installOrder(picks []pick, c *chosen, capEdges [][2]int) ([]int, []string) {
	edges := slices.Clone(capEdges)
	var live, skipped []pick
	for _, k := range picks {
		if k.ver == nil {
			skipped = append(skipped, k)
			continue
		}
		live = append(live, k)
		for _, d := range p.depsOf(k.id, k.ver) {
			if dk, ok := c.byID[p.byName[d.Package]]; ok && dk.ver != nil {
				edges = append(edges, [2]int{dk.id, k.id})
			}
		}
	}
	order, cycles := p.order(live, edges)
	for _, k := range skipped {
		order = append(order, k.id)
	}
	return order, cycles
}

// order sorts the packages so that each comes after what it needs (ties by
// name), and names every cycle that prevents it.
func (p *problem) order(picks []pick, edges [][2]int) ([]int, []string) {
	succ := map[int][]int{}
	indeg := map[int]int{}
	for _, e := range edges {
		if !slices.Contains(succ[e[0]], e[1]) {
			succ[e[0]] = append(succ[e[0]], e[1])
			indeg[e[1]]++
		}
	}
	var ready, order []int
	for _, k := range picks {
		if indeg[k.id] == 0 {
			ready = append(ready, k.id)
		}
	}
	for len(ready) > 0 {
		slices.SortFunc(ready, func(a, b int) int { return cmp.Compare(p.nodes[a].name, p.nodes[b].name) })
		id := ready[0]
		ready = ready[1:]
		order = append(order, id)
		for _, s := range succ[id] {
			if indeg[s]--; indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	if len(order) == len(picks) {
		return order, nil
	}
	return order, p.cycles(picks, succ, order)
}

// cycles names, for each group of packages that need each other, one cycle
// through its first package by name: `a -> b -> c -> a` (a needs b ...).
func (p *problem) cycles(picks []pick, succ map[int][]int, done []int) []string {
	left := map[int]bool{}
	for _, k := range picks {
		if !slices.Contains(done, k.id) {
			left[k.id] = true
		}
	}
	needs := map[int][]int{} // reverse of succ: a needs b
	for from, tos := range succ {
		for _, to := range tos {
			if left[from] && left[to] {
				needs[to] = append(needs[to], from)
			}
		}
	}
	var out []string
	for _, k := range picks {
		if !left[k.id] {
			continue
		}
		path := p.cycleFrom(k.id, needs)
		if len(path) == 0 {
			continue // on no cycle itself, only after one
		}
		var names []string
		for _, id := range path {
			names = append(names, p.nodes[id].name)
			delete(left, id)
		}
		out = append(out, strings.Join(append(names, names[0]), " -> "))
	}
	return out
}

// cycleFrom finds the shortest path from start back to itself.
func (p *problem) cycleFrom(start int, next map[int][]int) []int {
	prev := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		nexts := slices.Clone(next[cur])
		slices.SortFunc(nexts, func(a, b int) int { return cmp.Compare(p.nodes[a].name, p.nodes[b].name) })
		for _, n := range nexts {
			if n == start {
				path := []int{cur}
				for c := cur; c != start; {
					c = prev[c]
					path = append(path, c)
				}
				slices.Reverse(path)
				return path
			}
			if _, seen := prev[n]; !seen {
				prev[n] = cur
				queue = append(queue, n)
			}
		}
	}
	return nil
}
