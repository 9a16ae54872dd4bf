// Package textdiff compares two texts line by line: the old and new text go
// in, a unified diff (as `diff -u` and `git diff` print it) comes out. It
// finds a shortest edit script with Myers' algorithm.
package textdiff

import (
	"fmt"
	"slices"
	"strings"
)

// Context is how many unchanged lines a hunk shows around each change.
const Context = 3

// Unified returns the unified diff that turns old into new, with headers
// naming them oldName and newName; "" when the texts are equal.
func Unified(oldName, newName, old, new string) string {
	if old == new {
		return ""
	}
	a, b := lines(old), lines(new)
	ops := diff(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks(ops) {
		h.write(&out, a, b)
	}
	return out.String()
}

// lines splits a text into lines, each keeping its line break; a last line
// without one is marked as git marks it.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		return out[:len(out)-1]
	}
	out[len(out)-1] += "\n\\ No newline at end of file\n"
	return out
}

// op is one step of the edit script: keep a[i] (= b[j]), delete a[i], or
// insert b[j].
type op struct {
	kind byte // ' ', '-', '+'
	i, j int
}

// diff returns a shortest edit script from a to b (Myers, O((N+M)D)),
// deletions before insertions within each change.
func diff(a, b []string) []op {
	n, m := len(a), len(b)
	off := n + m
	v := make([]int, 2*off+2)
	var trace [][]int
	for d := 0; d <= off; d++ {
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return deletionsFirst(backtrack(trace, n, m, off))
			}
		}
	}
	return nil
}

// backtrack walks the frontiers saved before each step back from the end,
// recovering the script.
func backtrack(trace [][]int, n, m, off int) []op {
	x, y := n, m
	var rev []op
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		pk := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', x, y})
		}
		if d == 0 {
			break
		}
		if x == px {
			y--
			rev = append(rev, op{'+', x, y})
		} else {
			x--
			rev = append(rev, op{'-', x, y})
		}
	}
	slices.Reverse(rev)
	return rev
}

// deletionsFirst orders each run of changes deletions first, as diff
// prints a changed block.
func deletionsFirst(ops []op) []op {
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != ' ' {
			j++
		}
		slices.SortStableFunc(ops[i:j], func(p, q op) int { return rank(p.kind) - rank(q.kind) })
		i = j
	}
	return ops
}

func rank(kind byte) int {
	if kind == '-' {
		return 0
	}
	return 1
}

// hunk is a run of the script: changes with up to Context kept lines
// around them.
type hunk struct{ ops []op }

func hunks(ops []op) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-Context)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// A run of kept lines longer than twice the context ends the hunk.
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*Context {
				end = min(end+Context, run)
				break
			}
			end = run
		}
		out = append(out, hunk{ops[start:end]})
		i = end
	}
	return out
}

func (h hunk) write(out *strings.Builder, a, b []string) {
	var oldStart, newStart, oldN, newN int
	oldStart, newStart = -1, -1
	for _, o := range h.ops {
		if o.kind != '+' {
			if oldStart < 0 {
				oldStart = o.i
			}
			oldN++
		}
		if o.kind != '-' {
			if newStart < 0 {
				newStart = o.j
			}
			newN++
		}
	}
	if oldStart < 0 {
		oldStart = h.ops[0].i
	}
	if newStart < 0 {
		newStart = h.ops[0].j
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", span(oldStart, oldN), span(newStart, newN))
	for _, o := range h.ops {
		line := ""
		switch o.kind {
		case '+':
			line = b[o.j]
		default:
			line = a[o.i]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
	}
}

// span writes a hunk's range as diff does: start,count (1-based), the count
// left out when it is 1, and start one before the hunk when it is empty.
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
