package kptkit_test

// TestReadmeCommands runs every command of the documentation as a new user
// would: each fenced sh block of README.md, functions/*/README.md,
// examples/*/README.md and every page under docs/, from the root of a scratch copy of the
// repository (its tracked files, committed to a fresh git repository, after
// `make build`), twice (a command that works once must work again), and
// checks that each command exits 0, or as its comment says (`exits 1`),
// and that the copy's tracked files are unchanged and nothing untracked
// appeared outside git-ignored places (out/, bin/).
//
// A block runs in one bash (set -uo pipefail), so `export` and `cd` hold
// for the rest of it; a command is a line and its continuations (a line
// ending in \, |, && or ||, or an open { or ( ); its comment is its own
// and the comment lines right above it. Commands whose comment names one
// of the exceptions below are not run, and any other `needs ...`
// in a comment is an error: the exceptions are the documented ones only.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readmeExceptions are what a command's comment may say to be left out.
var readmeExceptions = []string{
	"needs a container engine", // docker/podman: none in CI
	"needs a registry",         // pushing images
	"needs the network",        // go install from the module proxy, remote git
	"runs this test",           // make test would run the README test again
}

// readmeFiles are the pages whose commands are run: the README, the
// functions' and the examples' READMEs, and every page under docs/.
func readmeFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	for _, pattern := range []string{"functions/*/README.md", "examples/*/README.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	err := filepath.WalkDir("docs", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readmeCommand is one command of a block: its text, the line it starts
// on, the exit code it must give, and why it is not run ("" when it is).
type readmeCommand struct {
	text string
	line int
	code int
	skip string
}

// readmeBlock is a fenced sh block.
type readmeBlock struct {
	file     string
	line     int
	commands []readmeCommand
}

var (
	fence     = regexp.MustCompile("^\\s*```+\\s*([a-z]*)")
	exitsRe   = regexp.MustCompile(`\bexits (\d+)\b`)
	needsRe   = regexp.MustCompile(`\bneeds (a|an|the) [^,;:)]*`)
	shellLang = map[string]bool{"sh": true, "bash": true, "shell": true}
)

// readmeBlocks reads the sh blocks of a Markdown file and splits them into
// commands.
func readmeBlocks(t *testing.T, file string, data []byte) []readmeBlock {
	t.Helper()
	var (
		blocks []readmeBlock
		cur    *readmeBlock
		cmd    []string
		start  int
		depth  int
		above  string // the comment lines above the command
	)
	flush := func() {
		if len(cmd) == 0 {
			return
		}
		text := strings.Join(cmd, "\n")
		c := readmeCommand{text: text, line: start}
		comments := above + " " + commentsOf(text)
		if m := exitsRe.FindStringSubmatch(comments); m != nil {
			c.code, _ = strconv.Atoi(m[1])
		}
		for _, n := range needsRe.FindAllString(comments, -1) {
			known := false
			for _, e := range readmeExceptions {
				if strings.HasPrefix(n, e) {
					c.skip, known = e, true
				}
			}
			if !known {
				t.Errorf("%s:%d: %q is not one of the README test's exceptions %q", file, start, n, readmeExceptions)
			}
		}
		if strings.Contains(comments, "runs this test") {
			c.skip = "runs this test"
		}
		cur.commands = append(cur.commands, c)
		cmd, depth, above = nil, 0, ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			if cur == nil {
				if shellLang[m[1]] {
					blocks = append(blocks, readmeBlock{file: file, line: n})
					cur = &blocks[len(blocks)-1]
				} else {
					cur = &readmeBlock{} // another language: skipped until its fence closes
				}
				continue
			}
			flush()
			cur = nil
			continue
		}
		if cur == nil || cur.file == "" {
			continue
		}
		trimmed := strings.TrimSpace(line)
		if len(cmd) == 0 && trimmed == "" {
			above = ""
			continue
		}
		if len(cmd) == 0 && strings.HasPrefix(trimmed, "#") {
			above += " " + trimmed // the comment lines right above a command are its comment too
			continue
		}
		if len(cmd) == 0 {
			start = n
		}
		cmd = append(cmd, line)
		code := stripComment(line)
		depth += strings.Count(code, "{") + strings.Count(code, "(") - strings.Count(code, "}") - strings.Count(code, ")")
		code = strings.TrimSpace(code)
		if depth > 0 || strings.HasSuffix(code, "\\") || strings.HasSuffix(code, "|") ||
			strings.HasSuffix(code, "&&") || strings.HasSuffix(code, "||") {
			continue
		}
		flush()
	}
	if cur != nil && cur.file != "" {
		t.Errorf("%s:%d: the sh block is not closed", file, cur.line)
	}
	return blocks
}

// commentsOf returns the comments of a command's lines.
func commentsOf(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if code := stripComment(line); len(code) < len(line) {
			out = append(out, line[len(code):])
		}
	}
	return strings.Join(out, " ")
}

// stripComment cuts a shell comment off a line: a # at the start of a word,
// outside quotes.
func stripComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// script is the bash that runs a block's commands in order, checking each
// one's exit code.
func (b readmeBlock) script() string {
	var s strings.Builder
	s.WriteString("set -uo pipefail\n")
	for i, c := range b.commands {
		if c.skip != "" {
			fmt.Fprintf(&s, "# not run (%s):\n# %s\n", c.skip, strings.ReplaceAll(c.text, "\n", "\n# "))
			continue
		}
		fmt.Fprintf(&s, "echo '>>> %s:%d' >&2\n%s\n", b.file, c.line, c.text)
		fmt.Fprintf(&s, "rc=$?; if [ $rc -ne %d ]; then echo \"README test: command %d (%s:%d) exited $rc, want %d\" >&2; exit 100; fi\n",
			c.code, i+1, b.file, c.line, c.code)
	}
	return s.String()
}

// nestedEnv is set for the commands the documentation tests run: a
// command that runs the tests again (make test) must not run these.
const nestedEnv = "KPTKIT_DOCS_TEST_RUNNING"

func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the documentation's commands")
	}
	if os.Getenv(nestedEnv) != "" {
		t.Skip("run by a command of the documentation")
	}
	for _, tool := range []string{"git", "make", "kpt", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH (see README: make tools)", tool)
		}
	}
	var pages []struct {
		file   string
		blocks []readmeBlock
	}
	runnable := 0
	for _, f := range readmeFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks := readmeBlocks(t, f, b)
		for _, bl := range blocks {
			for _, c := range bl.commands {
				if c.skip == "" {
					runnable++
				}
			}
		}
		if len(blocks) > 0 {
			pages = append(pages, struct {
				file   string
				blocks []readmeBlock
			}{f, blocks})
		}
	}
	if runnable < 20 {
		t.Fatalf("only %d runnable commands found in the documentation", runnable)
	}
	base := scratchCheckout(t)
	for _, p := range pages {
		t.Run(strings.ReplaceAll(p.file, "/", "_"), func(t *testing.T) {
			t.Parallel()
			dir := copyCheckout(t, base)
			for _, b := range p.blocks {
				for round := 1; round <= 2; round++ {
					runBlock(t, dir, b, round)
				}
			}
		})
	}
}

// copyCheckout copies the scratch checkout for one page, its bin/ as hard
// links (a build replaces a binary, never writes into it).
func copyCheckout(t *testing.T, base string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kptkit")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		flags := "-a"
		if e.Name() == "bin" {
			flags = "-al"
		}
		mustRun(t, "", "cp", flags, filepath.Join(base, e.Name()), dir)
	}
	return dir
}

// runBlock runs a block in the checkout dir and checks that the checkout
// is as clean as before.
func runBlock(t *testing.T, dir string, b readmeBlock, round int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", b.script())
	cmd.Dir = dir
	cmd.Env = readmeEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s:%d, run %d: %v\n%s", b.file, b.line, round, err, tail(out, 60))
		return
	}
	if status := mustRun(t, dir, "git", "status", "--porcelain", "--untracked-files=all"); status != "" {
		t.Errorf("%s:%d, run %d: the checkout changed (the commands must write only under out/):\n%s", b.file, b.line, round, status)
		mustRun(t, dir, "git", "stash", "--include-untracked", "--quiet") // the next blocks start clean
		mustRun(t, dir, "git", "stash", "drop", "--quiet")
	}
}

// scratchCheckout copies the repository's files (tracked, and new ones
// not ignored: what a commit would hold) into a fresh git repository with
// one commit, runs make build there, and checks that the binaries say
// which commit they were built from.
func scratchCheckout(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kptkit")
	files := mustRun(t, "", "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, f := range strings.Split(strings.TrimRight(files, "\x00"), "\x00") {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Lstat(f)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dir, "git", "init", "-q", "-b", "main")
	if tools, err := filepath.Abs(".tools"); err == nil { // as if make tools had run there
		if _, err := os.Stat(tools); err == nil {
			if err := os.Symlink(tools, filepath.Join(dir, ".tools")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte(".tools\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustRun(t, dir, "git", "add", "-A")
	mustRun(t, dir, "git", "commit", "-q", "-m", "scratch copy for the README test")
	mustRun(t, dir, "make", "build")
	rev := strings.TrimSpace(mustRun(t, dir, "git", "rev-parse", "HEAD"))
	for _, bin := range []string{"bin/kptkit version", "bin/set-package-context --version"} {
		out := mustRun(t, dir, "bash", "-c", bin)
		if !strings.Contains(out, "(revision "+rev+",") || !strings.Contains(out, "-"+rev[:12]+" ") {
			t.Errorf("%s does not name the commit it was built from (%s):\n%s", bin, rev, out)
		}
	}
	return dir
}

// readmeEnv is the environment the commands run in: a git identity (the
// examples commit to git repositories), and a PATH without this
// checkout's bin/ and .tools/bin (the Makefile puts them first), so that
// the commands find only what they name.
func readmeEnv(dir string) []string {
	self, _ := filepath.Abs(".")
	var path []string
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if !strings.HasPrefix(p, self+string(filepath.Separator)) && p != self {
			path = append(path, p)
		}
	}
	env := []string{"PATH=" + strings.Join(path, string(filepath.ListSeparator))}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, nestedEnv+"=1",
		"GIT_AUTHOR_NAME=kptkit", "GIT_AUTHOR_EMAIL=readme@kptkit.dev",
		"GIT_COMMITTER_NAME=kptkit", "GIT_COMMITTER_EMAIL=readme@kptkit.dev")
}

func mustRun(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = readmeEnv(dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

func tail(b []byte, lines int) string {
	all := strings.Split(string(b), "\n")
	if len(all) > lines {
		all = append([]string{"..."}, all[len(all)-lines:]...)
	}
	return strings.Join(all, "\n")
}

// TestReadmeBlocks: how the documentation's sh blocks split into commands,
// with their exit codes and exceptions.
func TestReadmeBlocks(t *testing.T) {
	t.Parallel()
	page := "intro\n\n```yaml\nnot: run\n```\n\n```sh\n" +
		"make build   # first\n" +
		"# a comment above names the exception (needs a registry)\n" +
		"bin/kptkit images build --push x \\\n  --tag dev\n" +
		"\n" +
		"kpt fn source a |\n  bin/f | kpt fn sink b   # exits 1: why\n" +
		"{ echo a\n  echo '# not a comment'; } | cat\n" +
		"echo 'a # b' # exits 3\n" +
		"```\n"
	got := readmeBlocks(t, "page.md", []byte(page))
	want := []readmeBlock{{file: "page.md", line: 7, commands: []readmeCommand{
		{text: "make build   # first", line: 8},
		{text: "bin/kptkit images build --push x \\\n  --tag dev", line: 10, skip: "needs a registry"},
		{text: "kpt fn source a |\n  bin/f | kpt fn sink b   # exits 1: why", line: 13, code: 1},
		{text: "{ echo a\n  echo '# not a comment'; } | cat", line: 15},
		{text: "echo 'a # b' # exits 3", line: 17, code: 3},
	}}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(readmeBlock{}, readmeCommand{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, bl := range readmeBlocks(t, "README.md", b) {
		for _, c := range bl.commands {
			if strings.HasPrefix(c.text, "make test") && c.skip != "runs this test" {
				t.Errorf("README.md:%d: make test is run by the README test (it would run itself)", c.line)
			}
		}
	}
}
