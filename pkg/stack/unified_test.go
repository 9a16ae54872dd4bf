package stack

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnified(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a, b string
		want string
	}{
		{"equal", "a\nb", "a\nb", ""},
		{"one line changed, context around it", "1\n2\n3\n4\n5\n6\n7\n8\n9", "1\n2\n3\n4\nfive\n6\n7\n8\n9",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"from nothing", "", "x\ny", "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"to nothing", "x", "", "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve",
			"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, unified("a", "b", lines(tc.a), lines(tc.b))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// patch applies a unified diff to a, as patch(1) would, or fails.
func patch(a []string, diff string) ([]string, error) {
	if diff == "" {
		return a, nil
	}
	ls := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")[2:]
	var out []string
	next := 0 // the next line of a not yet copied
	for i := 0; i < len(ls); {
		var as, an, bs, bn int
		if _, err := fmt.Sscanf(strings.NewReplacer(",", " ", "@@", "").Replace(ls[i]), " -%d %d +%d %d", &as, &an, &bs, &bn); err != nil {
			// single-line ranges have no count
			if _, err := fmt.Sscanf(ls[i], "@@ -%d", &as); err != nil {
				return nil, fmt.Errorf("bad hunk header %q", ls[i])
			}
		}
		start := as - 1
		if strings.HasPrefix(ls[i], fmt.Sprintf("@@ -%d,0 ", as)) {
			start = as
		}
		if start < next || start > len(a) {
			return nil, fmt.Errorf("hunk %q out of order", ls[i])
		}
		out = append(out, a[next:start]...)
		next = start
		for i++; i < len(ls) && !strings.HasPrefix(ls[i], "@@"); i++ {
			l := ls[i]
			switch l[0] {
			case ' ', '-':
				if next >= len(a) || a[next] != l[1:] {
					return nil, fmt.Errorf("line %d: %q does not match %q", next, l, a)
				}
				if l[0] == ' ' {
					out = append(out, a[next])
				}
				next++
			case '+':
				out = append(out, l[1:])
			}
		}
	}
	return append(out, a[next:]...), nil
}

// FuzzUnified: the diff of any two texts, applied to the first, gives the
// second.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc", "a\nc\nd")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10", "0\n1\n2\n3\n5\n6\n7\n8\n10\n11")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsAny(a+b, "\r") {
			return
		}
		la, lb := lines(a), lines(b)
		d := unified("a", "b", la, lb)
		got, err := patch(la, d)
		if err != nil {
			t.Fatalf("%v\n%s", err, d)
		}
		if !cmp.Equal(got, lb, cmpEmpty) {
			t.Fatalf("patched %q with\n%s\ngot %q, want %q", la, d, got, lb)
		}
	})
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") && len(a) == len(b) })
