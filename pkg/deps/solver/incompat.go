package solver

import "slices"

// Incompat is an incompatibility: a set of terms that cannot all be true.
// "P 1.x needs D ^2" is {P ∈ 1.x, not D ∈ ^2}; "X keeps D below 2" is
// {D ∈ >=2}. An external one comes from the caller, who knows what its ID
// stands for; a derived one was learned by the solver from two others, and
// is never tried again (the memory of failed partial assignments).
type Incompat struct {
	Terms []Term
	// ID is the caller's name for an external incompatibility (>= 0), or
	// one of the solver's own: rootID, derivedID, NoVersions.
	ID     int
	causes [2]*Incompat
}

const (
	rootID    = -1 // {not root}: the root must be chosen
	derivedID = -2 // learned by conflict resolution
	// NoVersions is the ID of {p ∈ S} when Source.Prefer refused every
	// candidate of S.
	NoVersions = -3
)

// External returns an incompatibility the caller defines: ID names it in
// explanations. Terms on one package are merged and terms that always hold
// are dropped.
func External(id int, terms ...Term) *Incompat {
	return &Incompat{Terms: normalize(terms, -1), ID: id}
}

// derive returns the incompatibility learned from a and b by resolution:
// their terms, merged per package, without the positive root term.
func derive(terms []Term, a, b *Incompat, root int) *Incompat {
	return &Incompat{Terms: normalize(terms, root), ID: derivedID, causes: [2]*Incompat{a, b}}
}

// normalize merges the terms on one package (intersection) and drops the
// terms that always hold ("not p ∈ {}"), and, when root >= 0 and other
// terms remain, the positive root term (the root is always chosen).
func normalize(terms []Term, root int) []Term {
	var out []Term
	for _, t := range terms {
		if !t.Positive && t.Set.Empty() {
			continue
		}
		if i := slices.IndexFunc(out, func(o Term) bool { return o.Pkg == t.Pkg }); i >= 0 {
			out[i] = intersect(out[i], t)
			continue
		}
		out = append(out, t)
	}
	if root >= 0 && len(out) > 1 {
		out = slices.DeleteFunc(out, func(t Term) bool { return t.Pkg == root && t.Positive })
	}
	return out
}

// failure reports whether the incompatibility says the problem has no
// solution: no terms, or only "the root is chosen".
func (in *Incompat) failure(root int) bool {
	return len(in.Terms) == 0 || (len(in.Terms) == 1 && in.Terms[0].Pkg == root && in.Terms[0].Positive)
}

// Leaves returns the external incompatibilities a derived one was learned
// from (itself when it is external), each once, in the order a depth-first
// walk of its derivation meets them. The solver's own {not root} is left out.
func Leaves(in *Incompat) []*Incompat {
	var out []*Incompat
	seen := map[*Incompat]bool{}
	var walk func(*Incompat)
	walk = func(in *Incompat) {
		if in == nil || seen[in] {
			return
		}
		seen[in] = true
		if in.ID != derivedID {
			if in.ID != rootID {
				out = append(out, in)
			}
			return
		}
		walk(in.causes[0])
		walk(in.causes[1])
	}
	walk(in)
	return out
}
