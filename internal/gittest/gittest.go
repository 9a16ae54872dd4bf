// Package gittest makes git repositories for tests with the git binary:
// files are committed and tagged with a fixed author and clock, so that
// commits are the same on every run.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
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
	cmd := exec.Command("git", args...)
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
