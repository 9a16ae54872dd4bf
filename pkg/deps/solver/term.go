package solver

// Term is a statement about one package: positive, "the package is chosen
// at one of Set"; negative, "the package is not chosen at any of Set" (it is
// not chosen at all, or at a candidate outside Set).
type Term struct {
	Pkg      int
	Set      Set
	Positive bool
}

// Require is the positive term "pkg is chosen at one of set".
func Require(pkg int, set Set) Term { return Term{Pkg: pkg, Set: set, Positive: true} }

// Forbid is the negative term "pkg is not chosen at any of set".
func Forbid(pkg int, set Set) Term { return Term{Pkg: pkg, Set: set} }

// Negate returns the opposite statement.
func (t Term) Negate() Term { return Term{Pkg: t.Pkg, Set: t.Set, Positive: !t.Positive} }

// relation is how a term, or an incompatibility, stands against what is
// known of a package (or of every package).
type relation int

const (
	inconclusive relation = iota
	satisfied
	contradicted
	almostSatisfied
)

// relate tells how t stands when the package is known to be chosen (pos) or
// not known to be, within set.
func relate(t Term, pos bool, set Set) relation {
	if t.Positive {
		if set.Disjoint(t.Set) {
			return contradicted
		}
		if pos && set.SubsetOf(t.Set) {
			return satisfied
		}
		return inconclusive
	}
	if set.Disjoint(t.Set) {
		return satisfied
	}
	if pos && set.SubsetOf(t.Set) {
		return contradicted
	}
	return inconclusive
}

// knowledge is what a term alone says of its package: whether it is chosen,
// and within which candidates.
func knowledge(t Term, all Set) (bool, Set) {
	if t.Positive {
		return true, t.Set
	}
	return false, all.Minus(t.Set)
}

// implies reports whether a being true makes b true (both on one package).
func implies(a, b Term, all Set) bool {
	pos, set := knowledge(a, all)
	return relate(b, pos, set) == satisfied
}

// intersect returns the term that holds when both a and b hold (one package).
func intersect(a, b Term) Term {
	switch {
	case a.Positive && b.Positive:
		return Require(a.Pkg, a.Set.And(b.Set))
	case a.Positive:
		return Require(a.Pkg, a.Set.Minus(b.Set))
	case b.Positive:
		return Require(a.Pkg, b.Set.Minus(a.Set))
	default:
		return Forbid(a.Pkg, a.Set.Or(b.Set))
	}
}

// fold adds what t says to what is known (pos, set).
func fold(pos bool, set Set, t Term) (bool, Set) {
	if t.Positive {
		return true, set.And(t.Set)
	}
	return pos, set.Minus(t.Set)
}
