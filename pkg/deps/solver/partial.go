package solver

// assignment is one entry of the partial solution: a decision (the package
// is chosen at one candidate) or a derivation (a term that must hold, and
// the incompatibility that forces it).
type assignment struct {
	term     Term
	decision bool
	level    int
	cause    *Incompat
}

// pkgState is what the partial solution knows of one package: the
// intersection of its assignments.
type pkgState struct {
	all     Set   // every candidate
	pos     bool  // some assignment says it is chosen
	set     Set   // the candidates it may be chosen at
	decided bool  // a decision chose it
	assigns []int // its assignments, indexes into partial.assigns
}

// partial is the partial solution: assignments in order, and per package
// the knowledge they add up to.
type partial struct {
	assigns []assignment
	states  []*pkgState
	level   int
}

// state returns what is known of p, creating it with n candidates.
func (ps *partial) state(p, n int) *pkgState {
	for p >= len(ps.states) {
		ps.states = append(ps.states, nil)
	}
	st := ps.states[p]
	if st == nil {
		all := All(n)
		st = &pkgState{all: all, set: all}
		ps.states[p] = st
	}
	return st
}

// add records an assignment.
func (ps *partial) add(a assignment, st *pkgState) {
	st.assigns = append(st.assigns, len(ps.assigns))
	ps.assigns = append(ps.assigns, a)
	st.pos, st.set = fold(st.pos, st.set, a.term)
	if a.decision {
		st.decided = true
	}
}

// backtrack removes every assignment above decision level.
func (ps *partial) backtrack(level int) {
	for len(ps.assigns) > 0 && ps.assigns[len(ps.assigns)-1].level > level {
		a := ps.assigns[len(ps.assigns)-1]
		ps.assigns = ps.assigns[:len(ps.assigns)-1]
		st := ps.states[a.term.Pkg]
		st.assigns = st.assigns[:len(st.assigns)-1]
		st.pos, st.set, st.decided = false, st.all, false
		for _, i := range st.assigns {
			st.pos, st.set = fold(st.pos, st.set, ps.assigns[i].term)
			st.decided = st.decided || ps.assigns[i].decision
		}
	}
	ps.level = level
}

// satisfierOf returns the index of the earliest assignment after which t
// holds, or -1 when it never does.
func (ps *partial) satisfierOf(t Term, st *pkgState) int {
	pos, set := false, st.all
	for _, i := range st.assigns {
		pos, set = fold(pos, set, ps.assigns[i].term)
		if relate(t, pos, set) == satisfied {
			return i
		}
	}
	return -1
}

// previousWith returns the index of the earliest assignment of t's package
// before sat such that it, its predecessors and sat together make t hold,
// or -1.
func (ps *partial) previousWith(t Term, st *pkgState, sat int) int {
	pos, set := false, st.all
	for _, i := range st.assigns {
		if i >= sat {
			break
		}
		pos, set = fold(pos, set, ps.assigns[i].term)
		p2, s2 := fold(pos, set, ps.assigns[sat].term)
		if relate(t, p2, s2) == satisfied {
			return i
		}
	}
	return -1
}
