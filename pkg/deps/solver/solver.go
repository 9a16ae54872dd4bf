package solver

import (
	"fmt"
	"slices"
)

// Source tells the solver about the packages, which it knows only by number.
type Source interface {
	// Size returns how many candidates package p has.
	Size(p int) int
	// Prefer returns the candidate of p to try first among allowed (never
	// empty), or -1 to refuse them all. why holds the incompatibilities that
	// narrowed p to allowed, as the partial solution stands.
	Prefer(p int, allowed Set, why []*Incompat) int
	// Dependencies returns the incompatibilities that choosing candidate v
	// of p brings, typically {p ∈ S, not d ∈ R}: "p at S needs d in R". The
	// same dependency should come back as the same *Incompat.
	Dependencies(p, v int) []*Incompat
}

// Problem is what to solve: a root package (one candidate) that must be
// chosen, the packages it reaches through Source, and the external
// incompatibilities known from the start.
type Problem struct {
	Source    Source
	Root      int
	Incompats []*Incompat
	// Budget bounds the work: every incompatibility checked against the
	// partial solution, every decision, derivation and conflict resolution
	// step counts one. Zero means DefaultBudget.
	Budget int
}

// DefaultBudget is the step budget when a Problem sets none.
const DefaultBudget = 2_000_000

// Solution is the chosen candidate of every package the root needs.
type Solution struct {
	// Chosen maps each chosen package (the root excluded) to its candidate.
	Chosen map[int]int
	// Steps is the work done; Conflicts how many conflicts were met (each
	// teaches an incompatibility and jumps back).
	Steps     int
	Conflicts int
}

// Failure says why there is no solution: Cause is the learned
// incompatibility that proves it (or, when the budget ran out, the last one
// learned, if any).
type Failure struct {
	Cause     *Incompat
	Exhausted bool
	Steps     int
}

func (f *Failure) Error() string {
	if f.Exhausted {
		return fmt.Sprintf("gave up after %d steps", f.Steps)
	}
	return "no solution"
}

// Solve runs a complete search in the PubGrub way: decide the preferred
// candidate of a needed package, propagate what the incompatibilities then
// force, and on a conflict learn a new incompatibility and jump back to where
// it first applies. Learned incompatibilities are never tried again, so a
// failed partial assignment is never explored twice.
func Solve(p Problem) (*Solution, *Failure) {
	s := &solver{Problem: p, byPkg: map[int][]*Incompat{}, added: map[*Incompat]bool{}}
	if s.Budget <= 0 {
		s.Budget = DefaultBudget
	}
	s.add(&Incompat{Terms: []Term{Forbid(p.Root, All(1))}, ID: rootID})
	for _, in := range p.Incompats {
		s.add(in)
	}
	next := p.Root
	for {
		if f := s.propagate(next); f != nil {
			return nil, f
		}
		var done bool
		if next, done = s.decide(); done {
			return s.solution(), nil
		}
		if s.steps > s.Budget {
			return nil, &Failure{Cause: s.last, Exhausted: true, Steps: s.steps}
		}
	}
}

type solver struct {
	Problem
	ps        partial
	byPkg     map[int][]*Incompat
	added     map[*Incompat]bool
	steps     int
	conflicts int
	last      *Incompat // the last incompatibility learned
}

func (s *solver) state(p int) *pkgState {
	if p < len(s.ps.states) && s.ps.states[p] != nil {
		return s.ps.states[p]
	}
	n := 1
	if p != s.Root {
		n = s.Source.Size(p)
	}
	return s.ps.state(p, n)
}

func (s *solver) add(in *Incompat) {
	if s.added[in] {
		return
	}
	s.added[in] = true
	for _, t := range in.Terms {
		s.byPkg[t.Pkg] = append(s.byPkg[t.Pkg], in)
	}
}

// relation tells how an incompatibility stands against the partial
// solution; for almostSatisfied, the index of the one term not satisfied.
func (s *solver) relation(in *Incompat) (relation, int) {
	s.steps++
	open := -1
	for i, t := range in.Terms {
		st := s.state(t.Pkg)
		switch relate(t, st.pos, st.set) {
		case contradicted:
			return contradicted, -1
		case inconclusive:
			if open >= 0 {
				return inconclusive, -1
			}
			open = i
		}
	}
	if open < 0 {
		return satisfied, -1
	}
	return almostSatisfied, open
}

func (s *solver) derive(t Term, cause *Incompat) {
	s.steps++
	s.ps.add(assignment{term: t, level: s.ps.level, cause: cause}, s.state(t.Pkg))
}

// propagate derives every term the incompatibilities force, starting from
// what changed about pkg, resolving conflicts on the way.
func (s *solver) propagate(pkg int) *Failure {
	changed := []int{pkg}
	for len(changed) > 0 {
		p := changed[len(changed)-1]
		changed = changed[:len(changed)-1]
		list := s.byPkg[p]
		for i := len(list) - 1; i >= 0; i-- {
			in := list[i]
			rel, open := s.relation(in)
			switch rel {
			case satisfied:
				cause, f := s.resolve(in)
				if f != nil {
					return f
				}
				rel, open = s.relation(cause)
				if rel != almostSatisfied {
					return &Failure{Cause: cause, Steps: s.steps} // cannot happen: resolution ends almost satisfied
				}
				t := cause.Terms[open]
				s.derive(t.Negate(), cause)
				changed = append(changed[:0], t.Pkg)
				i = -1 // start over from the package the learned term is about
			case almostSatisfied:
				t := in.Terms[open]
				s.derive(t.Negate(), in)
				if !slices.Contains(changed, t.Pkg) {
					changed = append(changed, t.Pkg)
				}
			}
			if s.steps > s.Budget {
				return &Failure{Cause: s.last, Exhausted: true, Steps: s.steps}
			}
		}
	}
	return nil
}

// resolve turns a satisfied incompatibility into the learned one that
// explains the conflict, and backtracks to the level where it first
// applies. It fails when the learned incompatibility rules out the root.
func (s *solver) resolve(in *Incompat) (*Incompat, *Failure) {
	s.conflicts++
	learned := false
	for !in.failure(s.Root) {
		s.steps++
		if s.steps > s.Budget {
			return nil, &Failure{Cause: s.last, Exhausted: true, Steps: s.steps}
		}
		satIdx, term, prevIdx := s.satisfier(in)
		if satIdx < 0 {
			return nil, &Failure{Cause: in, Steps: s.steps} // cannot happen for a satisfied incompatibility
		}
		sat := s.ps.assigns[satIdx]
		prevLevel := 0
		if prevIdx >= 0 {
			prevLevel = s.ps.assigns[prevIdx].level
		}
		if sat.decision || prevLevel != sat.level {
			if learned {
				s.add(in)
				s.last = in
			}
			s.ps.backtrack(prevLevel)
			return in, nil
		}
		terms := make([]Term, 0, len(in.Terms)+len(sat.cause.Terms))
		for _, t := range in.Terms {
			if t.Pkg != term.Pkg {
				terms = append(terms, t)
			}
		}
		for _, t := range sat.cause.Terms {
			if t.Pkg != term.Pkg {
				terms = append(terms, t)
			}
		}
		all := s.state(term.Pkg).all
		if !implies(sat.term, term, all) {
			terms = append(terms, intersect(sat.term, term.Negate()).Negate())
		}
		in = derive(terms, in, sat.cause, s.Root)
		s.last = in
		learned = true
	}
	return nil, &Failure{Cause: in, Steps: s.steps}
}

// satisfier finds the earliest assignment after which in holds, the term of
// in it is about, and the assignment before it that the rest of in needs
// (-1: none).
func (s *solver) satisfier(in *Incompat) (int, Term, int) {
	idx := make([]int, len(in.Terms))
	sat, which := -1, -1
	for i, t := range in.Terms {
		idx[i] = s.ps.satisfierOf(t, s.state(t.Pkg))
		if idx[i] > sat {
			sat, which = idx[i], i
		}
	}
	if which < 0 {
		return -1, Term{}, -1
	}
	prev := -1
	for i, j := range idx {
		if i != which && j > prev {
			prev = j
		}
	}
	t := in.Terms[which]
	all := s.state(t.Pkg).all
	if !implies(s.ps.assigns[sat].term, t, all) {
		prev = max(prev, s.ps.previousWith(t, s.state(t.Pkg), sat))
	}
	return sat, t, prev
}

// decide chooses a candidate for the needed package with the fewest
// candidates left (ties by number, the order packages were made in), adding
// the incompatibilities its dependencies bring. It reports done when every
// needed package is chosen.
func (s *solver) decide() (int, bool) {
	best, bestN := -1, 0
	for p, st := range s.ps.states {
		if st == nil || !st.pos || st.decided {
			continue
		}
		if n := st.set.Len(); best < 0 || n < bestN {
			best, bestN = p, n
		}
	}
	if best < 0 {
		return 0, true
	}
	s.steps++
	st := s.state(best)
	v := -1
	if best == s.Root {
		v = 0
	} else if !st.set.Empty() {
		why := make([]*Incompat, 0, len(st.assigns))
		for _, i := range st.assigns {
			if c := s.ps.assigns[i].cause; c != nil {
				why = append(why, c)
			}
		}
		v = s.Source.Prefer(best, st.set, why)
	}
	if v < 0 || !st.set.Has(v) {
		s.add(&Incompat{Terms: []Term{Require(best, st.set)}, ID: NoVersions})
		return best, false
	}
	conflict := false
	if best != s.Root {
		for _, in := range s.Source.Dependencies(best, v) {
			s.add(in)
			conflict = conflict || s.wouldSatisfy(in, best, v)
		}
	}
	if !conflict {
		s.ps.level++
		s.ps.add(assignment{term: Require(best, Of(st.all.Len(), v)), decision: true, level: s.ps.level}, st)
	}
	return best, false
}

// wouldSatisfy reports whether in would hold once p is chosen at v.
func (s *solver) wouldSatisfy(in *Incompat, p, v int) bool {
	for _, t := range in.Terms {
		if t.Pkg == p {
			if t.Set.Has(v) != t.Positive {
				return false
			}
			continue
		}
		st := s.state(t.Pkg)
		if relate(t, st.pos, st.set) != satisfied {
			return false
		}
	}
	return true
}

func (s *solver) solution() *Solution {
	sol := &Solution{Chosen: map[int]int{}, Steps: s.steps, Conflicts: s.conflicts}
	for p, st := range s.ps.states {
		if st == nil || !st.decided || p == s.Root {
			continue
		}
		sol.Chosen[p] = st.set.First()
	}
	return sol
}
