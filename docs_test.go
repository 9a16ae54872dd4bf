package kptkit_test

// The documentation's shape, held without running it: the README stays a
// front door, every link and every path a page names exists, numbered
// steps count in order, images are named as kpt runs them, every example
// has a README and hides no script in .expected/, and make says what it
// is doing before it takes long. TestReadmeCommands runs the commands.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// readmeMaxLines is the front door's length.
const readmeMaxLines = 200

// TestReadmeFrontDoor: the README is at most 200 lines, and its first two
// commands are make demo and make test.
func TestReadmeFrontDoor(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move reference to a page under docs/", n, readmeMaxLines)
	}
	var first []string
	for _, bl := range readmeBlocks(t, "README.md", b) {
		for _, c := range bl.commands {
			first = append(first, strings.Join(strings.Fields(stripComment(c.text)), " "))
		}
	}
	if d := cmp.Diff([]string{"make demo", "make test"}, first[:min(2, len(first))]); d != "" {
		t.Errorf("the README's first two commands (-want +got):\n%s", d)
	}
}

// docLine is a line of a page, outside its fenced blocks or inside one.
type docLine struct {
	n       int
	text    string
	inBlock bool
	block   int // the fenced block's number on the page, from 1
}

// docLines splits a page into lines, telling which are in fenced blocks.
func docLines(data []byte) []docLine {
	var (
		out   []docLine
		in    bool
		block int
		sc    = bufio.NewScanner(bytes.NewReader(data))
	)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if fence.MatchString(line) {
			if !in {
				block++
			}
			in = !in
			continue
		}
		out = append(out, docLine{n: n, text: line, inBlock: in, block: block})
	}
	return out
}

var (
	linkRe       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCodeRe = regexp.MustCompile("`[^`]+`")
	headingRe    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	imageRe      = regexp.MustCompile(`(?:--image[= ]|\bimage:\s*)["']?([^\s"'#,}]+)`)
)

// anchors returns the anchors GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as hyphens, -1, -2 for repeats.
func anchors(data []byte) map[string]bool {
	out := map[string]bool{}
	for _, l := range docLines(data) {
		m := headingRe.FindStringSubmatch(l.text)
		if l.inBlock || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", b.String(), i)
		}
		out[a] = true
	}
	return out
}

// TestReadmeLinks: every relative link of every page names a file or
// folder that exists, and a heading of the page it names.
func TestReadmeLinks(t *testing.T) {
	t.Parallel()
	for _, f := range readmeFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range docLines(b) {
			if l.inBlock {
				continue
			}
			for _, m := range linkRe.FindAllStringSubmatch(l.text, -1) {
				if err := checkLink(f, b, m[1]); err != nil {
					t.Errorf("%s:%d: %v", f, l.n, err)
				}
			}
		}
	}
}

// checkLink checks one link of the page file (its bytes data).
func checkLink(file string, data []byte, target string) error {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return nil
	}
	where, frag, _ := strings.Cut(target, "#")
	page := data
	if where != "" {
		p := filepath.Join(filepath.Dir(file), filepath.FromSlash(where))
		info, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("link %s: %s does not exist", target, p)
		}
		if frag == "" {
			return nil
		}
		if info.IsDir() || !strings.HasSuffix(p, ".md") {
			return fmt.Errorf("link %s: %s is not a page with headings", target, p)
		}
		if page, err = os.ReadFile(p); err != nil {
			return err
		}
	}
	if frag != "" && !anchors(page)[frag] {
		return fmt.Errorf("link %s: no heading gives the anchor #%s", target, frag)
	}
	return nil
}

// docRoots are the repository's folders a page may name a path in.
var docRoots = []string{".ci/", "cmd/", "docs/", "examples/", "functions/", "internal/", "pkg/", "schemas/"}

// docOutside are the folders outside the checkout a page may name: each
// page that does says what happens without it.
var docOutside = []string{
	"../shared/bench", // the project's benchmark generators: the benchmarks that read them skip
	"../catalog",      // a checkout of the Nephio catalog, for running the walk over all of it
}

// TestReadmePaths: every path a page names in backquotes in the
// repository (examples/..., pkg/..., ...) exists, and every one the README
// and docs/ name beside it (../...) is one of the folders they explain.
func TestReadmePaths(t *testing.T) {
	t.Parallel()
	for _, f := range readmeFiles(t) {
		if strings.HasPrefix(f, "examples/") {
			continue // their paths are the example's own
		}
		setup := f == "README.md" || strings.HasPrefix(f, "docs/") // the pages that say what a checkout needs
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range docLines(b) {
			if l.inBlock {
				continue
			}
			for _, code := range inlineCodeRe.FindAllString(l.text, -1) {
				if err := checkPath(strings.Trim(code, "`"), setup); err != nil {
					t.Errorf("%s:%d: %v", f, l.n, err)
				}
			}
		}
	}
}

// checkPath checks a backquoted token that names a path; outside says
// whether a path beside the checkout (../...) is one too (elsewhere, as in
// a function's messages, it is an example of a path).
func checkPath(tok string, outside bool) error {
	if strings.ContainsAny(tok, " <>*$…=@") || strings.Contains(tok, "...") {
		return nil // a pattern, a command or a flag, not a path
	}
	tok = strings.TrimSuffix(tok, "/")
	if strings.HasPrefix(tok, "../") && outside {
		for _, o := range docOutside {
			if tok == o || strings.HasPrefix(tok, o+"/") {
				return nil
			}
		}
		return fmt.Errorf("%s is outside the checkout: a clone does not have it (the folders beside it the pages explain: %q)", tok, docOutside)
	}
	for _, root := range docRoots {
		if strings.HasPrefix(tok, root) {
			if _, err := os.Stat(path.Clean(tok)); err != nil {
				return fmt.Errorf("%s does not exist", tok)
			}
		}
	}
	return nil
}

var stepRe = regexp.MustCompile(`^\s*#\s*(\d+)\.\s`)

// TestReadmeSteps: the steps a block numbers in its comments count 1, 2,
// 3, ... in order.
func TestReadmeSteps(t *testing.T) {
	t.Parallel()
	for _, f := range readmeFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range stepProblems(b) {
			t.Errorf("%s:%s", f, p)
		}
	}
}

// stepProblems returns the numbered steps of a page's blocks that do not
// count 1, 2, 3, ... in their block.
func stepProblems(data []byte) []string {
	var out []string
	block, want := 0, 1
	for _, l := range docLines(data) {
		m := stepRe.FindStringSubmatch(l.text)
		if !l.inBlock || m == nil {
			continue
		}
		if l.block != block {
			block, want = l.block, 1
		}
		if m[1] != fmt.Sprint(want) {
			out = append(out, fmt.Sprintf("%d: step %s, want %d", l.n, m[1], want))
		}
		want++
	}
	return out
}

// TestReadmeImages: every image a page's blocks give kpt has a registry
// part: kpt runs a name with a / as written and rewrites a bare one to
// gcr.io/kpt-fn/<name>, an image the page did not name.
func TestReadmeImages(t *testing.T) {
	t.Parallel()
	for _, f := range readmeFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range imageProblems(b) {
			t.Errorf("%s:%s", f, p)
		}
	}
}

// imageProblems returns the images a page's blocks name without a
// registry part.
func imageProblems(data []byte) []string {
	var out []string
	for _, l := range docLines(data) {
		if !l.inBlock {
			continue
		}
		for _, m := range imageRe.FindAllStringSubmatch(l.text, -1) {
			if !strings.Contains(m[1], "/") {
				out = append(out, fmt.Sprintf("%d: image %s has no registry part: kpt would run gcr.io/kpt-fn/%s", l.n, m[1], m[1]))
			}
		}
	}
	return out
}

// TestExamplesHaveReadmes: every example says what it is and how to run
// it, and keeps in .expected/ only the files of the test that runs it
// (examples/e2e_test.go): a script a user runs stands in the example.
func TestExamplesHaveReadmes(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("examples", "*", ""))
	if err != nil {
		t.Fatal(err)
	}
	var missing, hidden []string
	for _, d := range dirs {
		if info, err := os.Stat(d); err != nil || !info.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "README.md")); err != nil {
			missing = append(missing, d)
		}
		entries, _ := os.ReadDir(filepath.Join(d, ".expected"))
		for _, e := range entries {
			if !slices.Contains([]string{"config.yaml", "diff.patch", "output.yaml", "exec.sh"}, e.Name()) {
				hidden = append(hidden, filepath.Join(d, ".expected", e.Name()))
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("examples without a README.md:\n%s", strings.Join(missing, "\n"))
	}
	if len(hidden) > 0 {
		t.Errorf("files in .expected/ the example test does not read (move them into the example):\n%s", strings.Join(hidden, "\n"))
	}
}

// TestReadmeMakeProgress: make build, test, demo and tools announce what
// they do (echo "make <target>: ...") before each step that takes long (a
// build, the tests, an install), so that a cold run does not sit silent
// for minutes.
func TestReadmeMakeProgress(t *testing.T) {
	t.Parallel()
	long := regexp.MustCompile(`\bgo (build|test|install)\b`)
	announce := regexp.MustCompile(`echo "make [a-z]+: `)
	for _, target := range []string{"build", "test", "demo", "tools"} {
		out, err := exec.Command("make", "-n", "--no-print-directory", target).Output()
		if err != nil {
			t.Fatalf("make -n %s: %v", target, err)
		}
		var silent []string
		said := false
		for _, line := range strings.Split(string(out), "\n") {
			if announce.MatchString(line) {
				said = true
				continue
			}
			if long.MatchString(line) {
				if !said {
					silent = append(silent, line)
				}
				said = false
			}
		}
		if d := cmp.Diff([]string(nil), silent); d != "" {
			t.Errorf("make %s runs these with nothing said first (-want +got):\n%s", target, d)
		}
	}
}

// TestReadmeCheckers: what the shape tests above take for a problem.
func TestReadmeCheckers(t *testing.T) {
	t.Parallel()
	page := []byte("# A page: `kptkit render`\n\n## Speed\n\n## Speed\n\n```sh\n# kptkit's own kinds\n```\n")
	if d := cmp.Diff(map[string]bool{"a-page-kptkit-render": true, "speed": true, "speed-1": true}, anchors(page)); d != "" {
		t.Errorf("anchors (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		target string
		ok     bool
	}{
		{"docs/render.md", true},
		{"docs/render.md#who-runs-a-pipeline-entry", true},
		{"docs/render.md#no-such-heading", false},
		{"docs/no-such-page.md", false},
		{"#speed-1", true},
		{"#speed-2", false},
		{"examples/fleet", true},
		{"https://github.com/nephio-project/catalog", true},
	} {
		if err := checkLink("README.md", page, c.target); (err == nil) != c.ok {
			t.Errorf("checkLink(%q) = %v, want ok %v", c.target, err, c.ok)
		}
	}
	for _, c := range []struct {
		tok         string
		outside, ok bool
	}{
		{"examples/fleet/make-catalog.sh", true, true},
		{"examples/fleet/.expected/catalog.sh", true, false},
		{"pkg/no-such-package", true, false},
		{"examples/<function>-<case>/", true, true},
		{"out/fleet", true, true},
		{"../shared/bench/gen.py", true, true},
		{"../catalog", true, true},
		{"../SPEC", true, false},
		{"../x", false, true},
	} {
		if err := checkPath(c.tok, c.outside); (err == nil) != c.ok {
			t.Errorf("checkPath(%q, %v) = %v, want ok %v", c.tok, c.outside, err, c.ok)
		}
	}
	steps := []byte("```sh\n# 1. a\nx\n# 3. b\n```\n\n```sh\n# 1. c\n# 2. d\n```\n```sh\n# 2. e\n```\n")
	if d := cmp.Diff([]string{"4: step 3, want 2", "12: step 2, want 1"}, stepProblems(steps)); d != "" {
		t.Errorf("stepProblems (-want +got):\n%s", d)
	}
	images := []byte("kpt fn eval --image set-namespace:v0.4\n```sh\nkpt fn eval . --image set-package-context:dev\nkpt fn eval . --image localhost/set-package-context:dev\n```\n```yaml\n- image: set-labels:v0.1\n- image: ghcr.io/kptkit/set-package-context:v0.3.0\n```\n")
	want := []string{
		"3: image set-package-context:dev has no registry part: kpt would run gcr.io/kpt-fn/set-package-context:dev",
		"7: image set-labels:v0.1 has no registry part: kpt would run gcr.io/kpt-fn/set-labels:v0.1",
	}
	if d := cmp.Diff(want, imageProblems(images)); d != "" {
		t.Errorf("imageProblems (-want +got):\n%s", d)
	}
}
