package stack

import (
	"fmt"
	"strings"
)

// unified returns the unified diff (3 lines of context) that turns a into
// b, with the file headers given; "" when they are equal.
func unified(from, to string, a, b []string) string {
	ops := lineDiff(a, b)
	var out strings.Builder
	for _, h := range hunks(ops, 3) {
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
		}
		h.write(&out, ops)
	}
	return out.String()
}

// op is one line of a diff: ' ' kept, '-' removed from a, '+' added from b.
type op struct {
	kind byte
	line string
	a, b int // the line's number in a and in b (1-based), before it
}

// maxLCS bounds the table the longest common subsequence is found with;
// beyond it the texts are diffed as a whole replacement.
const maxLCS = 4 << 20

// lineDiff returns the edit that turns a into b, by their longest common
// subsequence of lines.
func lineDiff(a, b []string) []op {
	// Lines equal at both ends need no table.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var ops []op
	ai, bi := 0, 0
	keep := func(line string) { ops = append(ops, op{' ', line, ai, bi}); ai++; bi++ }
	for _, l := range a[:pre] {
		keep(l)
	}
	if (len(ma)+1)*(len(mb)+1) > maxLCS {
		for _, l := range ma {
			ops = append(ops, op{'-', l, ai, bi})
			ai++
		}
		for _, l := range mb {
			ops = append(ops, op{'+', l, ai, bi})
			bi++
		}
	} else {
		// lcs[i][j] is the length of the longest common subsequence of
		// ma[i:] and mb[j:].
		w := len(mb) + 1
		lcs := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				keep(ma[i])
				i, j = i+1, j+1
			case i < len(ma) && (j == len(mb) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				ops = append(ops, op{'-', ma[i], ai, bi})
				ai, i = ai+1, i+1
			default:
				ops = append(ops, op{'+', mb[j], ai, bi})
				bi, j = bi+1, j+1
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		keep(l)
	}
	return ops
}

// hunk is a range of ops shown together.
type hunk struct{ start, end int }

// hunks groups the changed ops with context lines around them.
func hunks(ops []op, context int) []hunk {
	var out []hunk
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		start, end := max(0, i-context), min(len(ops), i+context+1)
		if n := len(out); n > 0 && start <= out[n-1].end {
			out[n-1].end = end
			continue
		}
		out = append(out, hunk{start, end})
	}
	return out
}

// write writes the hunk: its header, then its lines.
func (h hunk) write(out *strings.Builder, ops []op) {
	lines := ops[h.start:h.end]
	var na, nb int
	for _, o := range lines {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	first := lines[0]
	fmt.Fprintf(out, "@@ -%s +%s @@\n", span(first.a, na), span(first.b, nb))
	for _, o := range lines {
		out.WriteByte(o.kind)
		out.WriteString(o.line)
		out.WriteByte('\n')
	}
}

// span is a hunk's range in one file: start,count (start is the line
// before an empty range, as diff writes it).
func span(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}
