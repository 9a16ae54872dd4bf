package textdiff_test

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/textdiff"
)

func TestUnified(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, old, new, want string }{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"change", "a\nb\nc\n", "a\nB\nc\n", "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"add to empty", "", "a\n", "--- old\n+++ new\n@@ -0,0 +1 @@\n+a\n"},
		{"remove all", "a\nb\n", "", "--- old\n+++ new\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"no newline", "a\n", "a", "--- old\n+++ new\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
			"--- old\n+++ new\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n"},
	} {
		if diff := cmp.Diff(c.want, textdiff.Unified("old", "new", c.old, c.new)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestAgainstDiff compares with GNU diff -u on random texts: the same
// numbers of removed and added lines (both are shortest scripts), and the
// patch applied to old gives new.
func TestAgainstDiff(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("diff is not installed")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(string(rune('a'+r.IntN(4))) + "\n")
		}
		return b.String()
	}
	for i := range 200 {
		old, new := text(), text()
		got := textdiff.Unified("old", "new", old, new)
		if applied := apply(t, old, got); applied != new {
			t.Fatalf("case %d: patch does not apply:\nold %q\nnew %q\n%s", i, old, new, got)
		}
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		_ = os.WriteFile(a, []byte(old), 0o644)
		_ = os.WriteFile(b, []byte(new), 0o644)
		want, _ := exec.Command("diff", "-u", a, b).Output()
		if count(got, '-') != count(string(want), '-') || count(got, '+') != count(string(want), '+') {
			t.Errorf("case %d: not a shortest script:\n%s\ndiff -u:\n%s", i, got, want)
		}
	}
}

func count(d string, c byte) int {
	n := 0
	for i, line := range strings.Split(d, "\n") {
		if i >= 2 && len(line) > 0 && line[0] == c {
			n++
		}
	}
	return n
}

// apply applies a unified diff of whole-line texts to old.
func apply(t *testing.T, old, d string) string {
	t.Helper()
	if d == "" {
		return old
	}
	a := strings.SplitAfter(old, "\n")
	var out []string
	pos := 0
	for _, line := range strings.SplitAfter(d, "\n")[2:] {
		switch {
		case strings.HasPrefix(line, "@@"):
			var os, on, ns, nn int
			fields := strings.Fields(line)
			parse(fields[1][1:], &os, &on)
			parse(fields[2][1:], &ns, &nn)
			start := os - 1
			if on == 0 {
				start = os
			}
			out = append(out, a[pos:start]...)
			pos = start
		case strings.HasPrefix(line, " "), strings.HasPrefix(line, "-"):
			if a[pos] != line[1:] {
				t.Fatalf("context mismatch at %d: %q vs %q", pos, a[pos], line[1:])
			}
			if line[0] == ' ' {
				out = append(out, line[1:])
			}
			pos++
		case strings.HasPrefix(line, "+"):
			out = append(out, line[1:])
		}
	}
	out = append(out, a[pos:]...)
	return strings.Join(out, "")
}

func parse(s string, start, n *int) {
	*n = 1
	if i := strings.IndexByte(s, ','); i >= 0 {
		*n = atoi(s[i+1:])
		s = s[:i]
	}
	*start = atoi(s)
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		d := textdiff.Unified("old", "new", old, new)
		if (d == "") != (old == new) {
			t.Fatalf("empty diff for different texts or the reverse")
		}
	})
}
