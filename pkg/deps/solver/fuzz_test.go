package solver_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/deps/solver"
)

// tiny is a small world read from fuzz bytes: up to 4 packages of up to 3
// versions, each version needing some packages within some versions, and
// the root needing some packages.
type tiny struct {
	sizes []int         // by package id - 1
	deps  [][][]tinyDep // package, version → what it needs
	roots []tinyDep     // what the root needs
	// holds are "unless x moves into moved, d stays out of bad"
	holds []tinyHold
	memo  map[[3]int]*solver.Incompat
}

type tinyHold struct {
	x, d       int
	moved, bad solver.Set
}

type tinyDep struct {
	pkg     int // 1-based
	allowed solver.Set
}

func readTiny(data []byte) *tiny {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := int(data[0])
		data = data[1:]
		return b
	}
	w := &tiny{memo: map[[3]int]*solver.Incompat{}}
	n := 1 + next()%4
	for p := 0; p < n; p++ {
		w.sizes = append(w.sizes, 1+next()%3)
	}
	dep := func() tinyDep {
		d := 1 + next()%n
		mask := next()
		var members []int
		for v := 0; v < w.sizes[d-1]; v++ {
			if mask&(1<<v) != 0 {
				members = append(members, v)
			}
		}
		return tinyDep{pkg: d, allowed: solver.Of(w.sizes[d-1], members...)}
	}
	w.deps = make([][][]tinyDep, n)
	for p := 0; p < n; p++ {
		w.deps[p] = make([][]tinyDep, w.sizes[p])
		for v := range w.sizes[p] {
			for range next() % 3 {
				w.deps[p][v] = append(w.deps[p][v], dep())
			}
		}
	}
	for range 1 + next()%3 {
		w.roots = append(w.roots, dep())
	}
	for range next() % 2 {
		x, d := dep(), dep()
		w.holds = append(w.holds, tinyHold{x: x.pkg, moved: x.allowed, d: d.pkg, bad: d.allowed})
	}
	return w
}

func (w *tiny) Size(p int) int                                             { return w.sizes[p-1] }
func (w *tiny) Prefer(_ int, allowed solver.Set, _ []*solver.Incompat) int { return allowed.First() }
func (w *tiny) Dependencies(p, v int) []*solver.Incompat {
	var out []*solver.Incompat
	for i, d := range w.deps[p-1][v] {
		key := [3]int{p, v, i}
		if w.memo[key] == nil {
			w.memo[key] = solver.External(0, solver.Require(p, solver.Of(w.sizes[p-1], v)), solver.Forbid(d.pkg, d.allowed))
		}
		out = append(out, w.memo[key])
	}
	return out
}

// valid reports whether an assignment (-1: not chosen) meets every need of
// the root and of every chosen version.
func (w *tiny) valid(a []int) bool {
	ok := func(d tinyDep) bool { return a[d.pkg-1] >= 0 && d.allowed.Has(a[d.pkg-1]) }
	for _, d := range w.roots {
		if !ok(d) {
			return false
		}
	}
	for _, h := range w.holds {
		xv, dv := a[h.x-1], a[h.d-1]
		if !(xv >= 0 && h.moved.Has(xv)) && dv >= 0 && h.bad.Has(dv) {
			return false
		}
	}
	for p, v := range a {
		if v < 0 {
			continue
		}
		for _, d := range w.deps[p][v] {
			if !ok(d) {
				return false
			}
		}
	}
	return true
}

// exists tries every assignment.
func (w *tiny) exists() bool {
	a := make([]int, len(w.sizes))
	var try func(p int) bool
	try = func(p int) bool {
		if p == len(a) {
			return w.valid(a)
		}
		for v := -1; v < w.sizes[p]; v++ {
			a[p] = v
			if try(p + 1) {
				return true
			}
		}
		return false
	}
	return try(0)
}

// FuzzSolve checks the solver against brute force: it finds a solution
// exactly when one exists, the solution it finds is one, and the minimized
// explanation of a failure still clashes.
func FuzzSolve(f *testing.F) {
	f.Add([]byte{1, 2, 2, 1, 0, 1, 1, 2, 3, 0, 1, 1, 0, 2})
	f.Add([]byte{3, 2, 2, 2, 2, 1, 1, 1, 2, 2, 1, 1, 3, 1, 2, 4, 0, 2, 0, 3, 2, 1, 7})
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		w := readTiny(data)
		var roots []*solver.Incompat
		for _, d := range w.roots {
			roots = append(roots, solver.External(0, solver.Require(0, solver.All(1)), solver.Forbid(d.pkg, d.allowed)))
		}
		for _, h := range w.holds {
			roots = append(roots, solver.External(0, solver.Forbid(h.x, h.moved), solver.Require(h.d, h.bad)))
		}
		sol, fail := solver.Solve(solver.Problem{Source: w, Root: 0, Incompats: roots})
		want := w.exists()
		switch {
		case fail != nil && fail.Exhausted:
			t.Fatalf("a tiny problem ran out of budget")
		case want && sol == nil:
			t.Fatalf("a solution exists but the solver found none (world %+v)", w)
		case !want && sol != nil:
			t.Fatalf("no solution exists but the solver returned %v", sol.Chosen)
		case sol != nil:
			a := make([]int, len(w.sizes))
			for i := range a {
				a[i] = -1
			}
			for p, v := range sol.Chosen {
				a[p-1] = v
			}
			if !w.valid(a) {
				t.Fatalf("the solution %v breaks a need (world %+v)", a, w)
			}
		default:
			core := solver.Minimize(w.Size, 0, solver.Leaves(fail.Cause), 0)
			if !solver.Clash(w.Size, 0, core, 0) {
				t.Fatalf("the minimized explanation does not clash")
			}
		}
	})
}
