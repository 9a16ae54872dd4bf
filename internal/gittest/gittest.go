// Package gittest makes git repositories for tests with the git binary:
// files are committed and tagged with a fixed author and clock, so that
// commits are the same on every run.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Repo is a working copy a test commits to.
type Repo struct {
	t   testing.TB
	Dir string
}

// New makes an empty repository (branch main) in a new temporary folder, or
// skips the test when git is missing.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Git runs git in the working copy and returns its output; a failure fails
// the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	return r.gitIn("", args...)
}

// gitIn is Git with stdin.
func (r *Repo) gitIn(stdin string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=kptkit", "GIT_AUTHOR_EMAIL=test@kptkit.dev", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=kptkit", "GIT_COMMITTER_EMAIL=test@kptkit.dev", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (slash paths → content) into the working copy; an
// empty content removes the file.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		target := filepath.Join(r.Dir, filepath.FromSlash(p))
		if content == "" {
			if err := os.Remove(target); err != nil && !os.IsNotExist(err) {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit writes files, commits everything and tags the commit with each of
// tags; it returns the commit.
func (r *Repo) Commit(message string, files map[string]string, tags ...string) string {
	r.t.Helper()
	r.Write(files)
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	for _, tag := range tags {
		r.Git("tag", tag)
	}
	return r.Git("rev-parse", "HEAD")
}

// Bare clones the repository into a new bare repository and returns its
// path.
func (r *Repo) Bare() string {
	r.t.Helper()
	dir := filepath.Join(r.t.TempDir(), "repo.git")
	r.Git("clone", "-q", "--bare", r.Dir, dir)
	return dir
}

// Plant commits files (slash paths → content) as a tree made with git's
// plumbing (hash-object -w, mktree, commit-tree, update-ref), as a hostile
// upstream does: the paths may be any git can hold, also those `git add`
// and a checkout refuse (a nested .git, .GIT, git~1). The commit goes on
// the branch main, after its head if it has one, and is tagged with each
// of tags; Plant returns it. The working copy is left as it was.
func (r *Repo) Plant(message string, files map[string]string, tags ...string) string {
	r.t.Helper()
	args := []string{"commit-tree", r.mktree(files), "-m", message}
	if head, err := exec.Command("git", "-C", r.Dir, "rev-parse", "-q", "--verify", "refs/heads/main").Output(); err == nil {
		args = append(args, "-p", strings.TrimSpace(string(head)))
	}
	commit := r.Git(args...)
	r.Git("update-ref", "refs/heads/main", commit)
	for _, tag := range tags {
		r.Git("tag", tag, commit)
	}
	return commit
}

// mktree writes the tree of files and returns its hash.
func (r *Repo) mktree(files map[string]string) string {
	r.t.Helper()
	subs := map[string]map[string]string{}
	var entries []string
	for p, content := range files {
		if name, rest, ok := strings.Cut(p, "/"); ok {
			if subs[name] == nil {
				subs[name] = map[string]string{}
			}
			subs[name][rest] = content
			continue
		}
		blob := r.gitIn(content, "hash-object", "-w", "--stdin")
		entries = append(entries, fmt.Sprintf("100644 blob %s\t%s\x00", blob, p))
	}
	for name, sub := range subs {
		entries = append(entries, fmt.Sprintf("040000 tree %s\t%s\x00", r.mktree(sub), name))
	}
	slices.Sort(entries)
	return r.gitIn(strings.Join(entries, ""), "mktree", "-z")
}
