package solver

// Minimize returns a smallest-possible subset of incompatibilities that,
// with the root, still has no solution: it drops each one in turn and keeps
// it out when the rest still clash, judged in a closed world where nothing
// but these incompatibilities holds (no dependencies are fetched). The
// result is irreducible: removing any one of its members lets a solution
// exist. size gives the number of candidates of each package; every check
// runs within budget steps, and one that runs out keeps its incompatibility.
// The input, the external leaves of a failure, is itself such a set.
func Minimize(size func(p int) int, root int, set []*Incompat, budget int) []*Incompat {
	if budget <= 0 {
		budget = DefaultBudget
	}
	core := append([]*Incompat(nil), set...)
	for i := 0; i < len(core); {
		trial := append(append([]*Incompat(nil), core[:i]...), core[i+1:]...)
		if Clash(size, root, trial, budget) {
			core = trial
			continue
		}
		i++
	}
	return core
}

// Clash reports whether the incompatibilities alone, in a closed world,
// leave the root without a solution.
func Clash(size func(p int) int, root int, set []*Incompat, budget int) bool {
	_, f := Solve(Problem{Source: closed{size}, Root: root, Incompats: set, Budget: budget})
	return f != nil && !f.Exhausted
}

// closed is a world of packages without dependencies, whose candidates are
// all equally good.
type closed struct{ size func(int) int }

func (c closed) Size(p int) int                               { return c.size(p) }
func (c closed) Prefer(_ int, allowed Set, _ []*Incompat) int { return allowed.First() }
func (c closed) Dependencies(int, int) []*Incompat            { return nil }
