package solver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/deps/solver"
)

func TestSolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		world  string
		roots  []string
		forbid map[string]string // label -> spec of an external {pkg ∈ versions}
		want   string            // the solution, or "" when there is none
		core   string            // the minimal explanation of a failure
	}{
		{
			name:  "highest versions when nothing clashes",
			world: "a@2: b\na@1: b\nb@3:\nb@2:",
			roots: []string{"a"},
			want:  "a@2 b@3",
		},
		{
			name:  "a dependency range picks the highest inside it",
			world: "a@2: b:2,1\nb@3:\nb@2:\nb@1:",
			roots: []string{"a"},
			want:  "a@2 b@2",
		},
		{
			name:  "two ranges intersect",
			world: "a@1: c:3,2\nb@1: c:2,1\nc@3:\nc@2:\nc@1:",
			roots: []string{"a", "b"},
			want:  "a@1 b@1 c@2",
		},
		{
			name:  "backtracks to a lower version of the dependant",
			world: "a@2: b:2\na@1: b:1\nb@2: c:9\nb@1:\nc@1:",
			roots: []string{"a"},
			want:  "a@1 b@1",
		},
		{
			name:  "backtracks over several levels",
			world: "a@3: b:3\na@2: b:2\na@1: b:1\nb@3: c:2\nb@2: c:2\nb@1: c:1\nc@2: d:9\nc@1:\nd@1:",
			roots: []string{"a"},
			want:  "a@1 b@1 c@1",
		},
		{
			name:   "an external constraint removes versions",
			world:  "a@2: b\na@1: b\nb@2:\nb@1:",
			roots:  []string{"a"},
			forbid: map[string]string{"x holds b below 2": "b:2"},
			want:   "a@2 b@1",
		},
		{
			name:  "no version satisfies two ranges",
			world: "p@1: d:2\nx@1: d:1\nd@2:\nd@1:",
			roots: []string{"p", "x"},
			core:  "p needs d:2; root needs p; root needs x; x needs d:1",
		},
		{
			name:  "every version of the dependant clashes",
			world: "p@2: d:2\np@1: d:1\nd@2:\nd@1:",
			roots: []string{"p"}, forbid: map[string]string{"d is pinned to 3": "d:2,1"},
			core: "d is pinned to 3; p needs d:1; p needs d:2; root needs p",
		},
		{
			name:  "a missing package",
			world: "p@1: ghost\np@1: ghost",
			roots: []string{"p"},
			core:  "p needs ghost; root needs p",
		},
		{
			name:  "a cycle is a solution to the solver (plans reject it)",
			world: "a@1: b\nb@1: a",
			roots: []string{"a"},
			want:  "a@1 b@1",
		},
		{
			name:  "the minimal set leaves out constraints that do not clash",
			world: "p@1: d:2; e\nq@1: e:1\nx@1: d:1\nd@2:\nd@1:\ne@1:",
			roots: []string{"p", "q", "x"},
			core:  "p needs d:2; root needs p; root needs x; x needs d:1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(tt.world)
			var ins []*solver.Incompat
			for _, r := range tt.roots {
				ins = append(ins, w.root(r))
			}
			for label, spec := range tt.forbid {
				ins = append(ins, w.forbid(label, spec))
			}
			sol, f := solver.Solve(solver.Problem{Source: w, Root: 0, Incompats: ins})
			got, core := "", ""
			if sol != nil {
				got = w.chosen(sol)
			}
			if f != nil {
				core = w.explain(solver.Minimize(w.Size, 0, solver.Leaves(f.Cause), 0))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("solution (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.core, core); diff != "" {
				t.Errorf("explanation (-want +got):\n%s", diff)
			}
		})
	}
}

// pigeons builds the pigeonhole problem: n+1 pigeons, each in one of n
// holes, no two in one hole. It has no solution, and proving so takes a
// resolution-based search exponential time: the worst case the budget is for.
func pigeons(n int) string {
	var b strings.Builder
	for p := 0; p <= n; p++ {
		for h := n - 1; h >= 0; h-- {
			fmt.Fprintf(&b, "p%d@%d: h%d:%d\n", p, h, h, p)
		}
	}
	for h := 0; h < n; h++ {
		for p := n; p >= 0; p-- {
			fmt.Fprintf(&b, "h%d@%d:\n", h, p)
		}
	}
	return b.String()
}

func TestSolveBudget(t *testing.T) {
	t.Parallel()
	w := newWorld(pigeons(9))
	var ins []*solver.Incompat
	for p := 0; p <= 9; p++ {
		ins = append(ins, w.root(fmt.Sprintf("p%d", p)))
	}
	sol, f := solver.Solve(solver.Problem{Source: w, Root: 0, Incompats: ins, Budget: 20_000})
	if sol != nil || f == nil || !f.Exhausted {
		t.Fatalf("Solve = %v, %v; want the budget to run out", sol, f)
	}
	if f.Steps <= 20_000 || f.Steps > 20_100 {
		t.Errorf("Steps = %d, want just over the budget", f.Steps)
	}
	if f.Cause == nil || len(solver.Leaves(f.Cause)) == 0 {
		t.Fatalf("no last conflict to explain the budget with")
	}
	// The last learned conflict is explained by real constraints: two
	// pigeons wanting one hole.
	got := w.explain(solver.Leaves(f.Cause))
	if !strings.Contains(got, " needs h") {
		t.Errorf("explanation %q names no hole", got)
	}
}

func TestSolveSmallPigeonholeProvesFailure(t *testing.T) {
	t.Parallel()
	w := newWorld(pigeons(3))
	var ins []*solver.Incompat
	for p := 0; p <= 3; p++ {
		ins = append(ins, w.root(fmt.Sprintf("p%d", p)))
	}
	sol, f := solver.Solve(solver.Problem{Source: w, Root: 0, Incompats: ins})
	if sol != nil || f == nil || f.Exhausted {
		t.Fatalf("Solve = %v, %v; want a proof that there is no solution", sol, f)
	}
	// Every constraint takes part: with any one left out, the pigeons fit.
	want := "p0 needs h0:0; p0 needs h1:0; p0 needs h2:0; p1 needs h0:1; p1 needs h1:1; p1 needs h2:1; " +
		"p2 needs h0:2; p2 needs h1:2; p2 needs h2:2; p3 needs h0:3; p3 needs h1:3; p3 needs h2:3; " +
		"root needs p0; root needs p1; root needs p2; root needs p3"
	if diff := cmp.Diff(want, w.explain(solver.Minimize(w.Size, 0, solver.Leaves(f.Cause), 0))); diff != "" {
		t.Errorf("explanation (-want +got):\n%s", diff)
	}
}

func TestSetOperations(t *testing.T) {
	t.Parallel()
	a, b := solver.Of(70, 0, 3, 65), solver.Of(70, 3, 69)
	got := []string{
		a.And(b).String(), a.Or(b).String(), a.Minus(b).String(),
		solver.All(70).Minus(a).Without(1).With(1).Minus(solver.All(70).Minus(a)).String(),
		fmt.Sprint(a.Len(), a.First(), a.Has(65), a.Has(64), a.Disjoint(b), a.And(b).SubsetOf(b), solver.None(70).Empty()),
	}
	want := []string{"{3}", "{0,3,65,69}", "{0,65}", "{}", "3 0 true false false true true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
