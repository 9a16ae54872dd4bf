package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Plumb is a bare repository a test builds with git's plumbing (hash-object,
// update-index on a scratch index, write-tree, commit-tree, update-ref), so
// that its commits, trees and refs are exactly what the test says — a
// repository laid out as Porch lays one out, written by git itself.
type Plumb struct {
	t    testing.TB
	Dir  string
	tick int
}

// NewPlumb makes an empty bare repository in a new temporary folder, or
// skips the test when git is missing.
func NewPlumb(t testing.TB) *Plumb {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	p := &Plumb{t: t, Dir: filepath.Join(t.TempDir(), "repo.git")}
	p.run(nil, "", "init", "-q", "--bare", "-b", "main", p.Dir)
	return p
}

// Git runs git in the repository and returns its output, trimmed; a failure
// fails the test.
func (p *Plumb) Git(args ...string) string {
	p.t.Helper()
	return p.run(nil, "", append([]string{"-C", p.Dir}, args...)...)
}

func (p *Plumb) run(env []string, stdin string, args ...string) string {
	p.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Tree writes the blobs of files (path → content, each of mode 100644) and
// their trees, and returns the root tree's hash.
func (p *Plumb) Tree(files map[string]string) string {
	p.t.Helper()
	index := filepath.Join(p.t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + index}
	paths := make([]string, 0, len(files))
	for f := range files {
		paths = append(paths, f)
	}
	sort.Strings(paths)
	for _, f := range paths {
		blob := p.run(nil, files[f], "-C", p.Dir, "hash-object", "-w", "--stdin")
		p.run(env, "", "-C", p.Dir, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+f)
	}
	return p.run(env, "", "-C", p.Dir, "write-tree")
}

// Commit commits files as the whole tree with the message, the author
// (name, email) and the parents, and returns the commit. Each commit is one
// minute after the previous one (from 2026-01-01T00:00:00Z), Porch the
// committer.
func (p *Plumb) Commit(files map[string]string, message, author, email string, parents ...string) string {
	p.t.Helper()
	tree := p.Tree(files)
	p.tick++
	date := fmt.Sprintf("%d +0000", 1767225600+60*p.tick)
	env := []string{"GIT_AUTHOR_NAME=" + author, "GIT_AUTHOR_EMAIL=" + email, "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=Package Orchestration Service", "GIT_COMMITTER_EMAIL=porch@kpt.dev", "GIT_COMMITTER_DATE=" + date}
	args := []string{"-C", p.Dir, "commit-tree", tree}
	for _, parent := range parents {
		args = append(args, "-p", parent)
	}
	// commit-tree takes the message as is from stdin (-F -): no cleanup.
	return p.run(env, message, append(args, "-F", "-")...)
}

// Ref points a ref (a full name) at a commit.
func (p *Plumb) Ref(name, commit string) {
	p.t.Helper()
	p.Git("update-ref", name, commit)
}

// Refs returns every ref of the repository with its value, one "<name>
// <hash>" line each, sorted by name.
func (p *Plumb) Refs() string {
	p.t.Helper()
	return p.Git("for-each-ref", "--format=%(refname) %(objectname)")
}
