package gitrepo

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// The tests that count git processes are not parallel: the count is the
// process's.

// moveAndCount applies a change of refs only and returns the git processes
// it started.
func moveAndCount(t *testing.T, g *Repo, refs ...pkgrev.RefUpdate) (int64, error) {
	t.Helper()
	before := GitProcesses()
	_, err := g.Apply(context.Background(), pkgrev.Change{Refs: refs})
	return GitProcesses() - before, err
}

// TestRefsMoveInProcess: a bare repository's refs are created, moved and
// deleted without a git process, each checked against the value read, all
// of a change or none; git reads them back, fsck holds.
func TestRefsMoveInProcess(t *testing.T) {
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	g := open(t, r.Dir)
	draft := "refs/heads/drafts/clusters/edge1/app/packagevariant-2"
	steps := []struct {
		name string
		refs []pkgrev.RefUpdate
		err  string // "" for none
		want map[string]string
	}{
		{"create", []pkgrev.RefUpdate{{Name: "refs/heads/drafts/x/packagevariant-1", New: c["a1"]}}, "",
			map[string]string{"refs/heads/drafts/x/packagevariant-1": c["a1"]}},
		{"move and delete together", []pkgrev.RefUpdate{{Name: "refs/heads/drafts/x/packagevariant-1", Old: c["a1"], New: c["a2"]}, {Name: draft, Old: c["e2"]}}, "",
			map[string]string{"refs/heads/drafts/x/packagevariant-1": c["a2"], draft: ""}},
		{"one stale: none moves", []pkgrev.RefUpdate{{Name: "refs/heads/drafts/x/packagevariant-1", Old: c["a1"], New: c["a3"]}, {Name: "refs/heads/main", Old: c["a3"], New: c["a1"]}},
			"cannot lock ref 'refs/heads/drafts/x/packagevariant-1': is at " + c["a2"] + " but expected " + c["a1"],
			map[string]string{"refs/heads/drafts/x/packagevariant-1": c["a2"], "refs/heads/main": c["a3"]}},
		{"create over one", []pkgrev.RefUpdate{{Name: "refs/heads/main", New: c["a1"]}}, "cannot lock ref 'refs/heads/main': reference already exists",
			map[string]string{"refs/heads/main": c["a3"]}},
		{"move a missing one", []pkgrev.RefUpdate{{Name: "refs/heads/gone", Old: c["a1"], New: c["a2"]}}, "cannot lock ref 'refs/heads/gone': reference is missing but expected " + c["a1"],
			map[string]string{"refs/heads/gone": ""}},
	}
	for _, st := range steps {
		n, err := moveAndCount(t, g, st.refs...)
		if got := errText(err); !strings.HasSuffix(got, st.err) || (st.err == "") != (err == nil) {
			t.Errorf("%s: error %q, want %q", st.name, got, st.err)
		}
		if n != 0 {
			t.Errorf("%s: %d git processes, want none", st.name, n)
		}
		for ref, want := range st.want {
			if got := revParse(r, ref); got != want {
				t.Errorf("%s: %s is at %q, want %q", st.name, ref, got, want)
			}
		}
	}
	if locks := findLocks(t, r.Dir); len(locks) != 0 {
		t.Errorf("locks left: %v", locks)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "refs/heads/drafts/clusters/edge1/app")); !os.IsNotExist(err) {
		t.Errorf("the deleted draft's empty folders are left: %v", err)
	}
	r.Git("fsck", "--strict")
}

// TestRefLocksAgainstGit: a git process moving a ref kptkit holds the lock
// of fails on that lock, and kptkit moving a ref a git process holds the
// lock of fails (git's own message) and moves nothing.
func TestRefLocksAgainstGit(t *testing.T) {
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	g := open(t, r.Dir)
	tx, err := g.prepareRefs([]pkgrev.RefUpdate{{Name: "refs/heads/main", Old: c["a3"], New: c["a2"]}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", r.Dir, "update-ref", "refs/heads/main", c["a1"], c["a3"]).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refs/heads/main.lock': File exists") {
		t.Errorf("git moved a ref kptkit holds: %v %s", err, out)
	}
	if err := tx.commit(); err != nil {
		t.Fatal(err)
	}
	if got := revParse(r, "refs/heads/main"); got != c["a2"] {
		t.Errorf("main is at %s, want %s", got, c["a2"])
	}

	// git holds main's lock (a prepared transaction) while kptkit moves it.
	cmd := exec.Command("git", "-C", r.Dir, "update-ref", "--stdin")
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, "start\nupdate refs/heads/main "+c["a1"]+" "+c["a2"]+"\nprepare\n")
	lines := bufio.NewScanner(stdout)
	for range 2 { // start: ok, prepare: ok
		if !lines.Scan() {
			t.Fatal("git update-ref --stdin ended")
		}
	}
	_, err = g.Apply(context.Background(), pkgrev.Change{Refs: []pkgrev.RefUpdate{
		{Name: "refs/heads/drafts/y/packagevariant-1", New: c["a1"]}, {Name: "refs/heads/main", Old: c["a2"], New: c["a3"]}}})
	if err == nil || !strings.Contains(err.Error(), "refs/heads/main.lock': File exists") {
		t.Errorf("kptkit moved a ref git holds: %v", err)
	}
	io.WriteString(in, "abort\n")
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := revParse(r, "refs/heads/main") + " " + revParse(r, "refs/heads/drafts/y/packagevariant-1"); got != c["a2"]+" " {
		t.Errorf("refs after the failed change: %s", got)
	}
}

// TestPackedRefs: a packed ref's value is the one checked and moved (its
// new value loose, as git writes it); deleting a packed ref, or creating a
// ref a packed one is in the way of, is git's (packed-refs rewritten, or
// git's refusal).
func TestPackedRefs(t *testing.T) {
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	r.Git("pack-refs", "--all", "--prune")
	g := open(t, r.Dir)
	for _, st := range []struct {
		name  string
		refs  []pkgrev.RefUpdate
		procs int64
		err   string
	}{
		{"stale against packed", []pkgrev.RefUpdate{{Name: "refs/heads/main", Old: c["a1"], New: c["a2"]}}, 0,
			"cannot lock ref 'refs/heads/main': is at " + c["a3"] + " but expected " + c["a1"]},
		{"move packed", []pkgrev.RefUpdate{{Name: "refs/heads/main", Old: c["a3"], New: c["a2"]}}, 0, ""},
		{"create packed", []pkgrev.RefUpdate{{Name: "refs/tags/v1.0", New: c["a2"]}}, 0, "cannot lock ref 'refs/tags/v1.0': reference already exists"},
		{"in the way", []pkgrev.RefUpdate{{Name: "refs/tags/v1.0/x", New: c["a2"]}}, 1, "'refs/tags/v1.0' exists; cannot create 'refs/tags/v1.0/x'"},
		{"in the way of each other", []pkgrev.RefUpdate{{Name: "refs/heads/n", New: c["a2"]}, {Name: "refs/heads/n-m", New: c["a2"]}, {Name: "refs/heads/n/o", New: c["a2"]}}, 1,
			"cannot lock ref 'refs/heads/n': cannot process 'refs/heads/n' and 'refs/heads/n/o' at the same time"},
		{"delete packed", []pkgrev.RefUpdate{{Name: "refs/tags/v1.0", Old: c["a1"]}}, 1, ""},
	} {
		n, err := moveAndCount(t, g, st.refs...)
		if got := errText(err); !strings.HasSuffix(got, st.err) || (st.err == "") != (err == nil) {
			t.Errorf("%s: error %q, want %q", st.name, got, st.err)
		}
		if n != st.procs {
			t.Errorf("%s: %d git processes, want %d", st.name, n, st.procs)
		}
	}
	want := "refs/heads/main " + c["a2"] + "\n"
	if got := r.Git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/main", "refs/heads/n", "refs/tags/v1.0") + "\n"; got != want {
		t.Errorf("refs (-want +got):\n%s", cmp.Diff(want, got))
	}
	if packed, _ := os.ReadFile(filepath.Join(r.Dir, "packed-refs")); strings.Contains(string(packed), "refs/tags/v1.0\n") {
		t.Errorf("the deleted tag is still packed:\n%s", packed)
	}
	r.Git("fsck", "--strict")
}

// TestRefsGitMoves: where git would do more than lock and write — write
// a reflog, run a reference-transaction hook — git moves the refs.
func TestRefsGitMoves(t *testing.T) {
	for name, setup := range map[string]func(dir string){
		"reflog on": func(dir string) { gitIn(t, dir, "config", "core.logAllRefUpdates", "true") },
		"a reflog":  func(dir string) { mkfile(t, filepath.Join(dir, "logs/refs/heads/main"), "") },
		"hook":      func(dir string) { mkfile(t, filepath.Join(dir, "hooks/reference-transaction"), "#!/bin/sh\n") },
		"extension": func(dir string) { gitIn(t, dir, "config", "extensions.worktreeConfig", "true") },
		"include":   func(dir string) { gitIn(t, dir, "config", "include.path", "/dev/null") },
	} {
		r := gittest.NewPorchRepo(t)
		setup(r.Dir)
		n, err := moveAndCount(t, open(t, r.Dir), pkgrev.RefUpdate{Name: "refs/heads/main", Old: r.Commits["a3"], New: r.Commits["a2"]})
		if err != nil || n != 1 {
			t.Errorf("%s: %d git processes (want 1): %v", name, n, err)
		}
		if got := revParse(r, "refs/heads/main"); got != r.Commits["a2"] {
			t.Errorf("%s: main is at %s", name, got)
		}
	}
}

// TestValidRefName holds validRefName to git check-ref-format's answer.
func TestValidRefName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"refs/heads/main", "refs/heads/drafts/a/b/packagevariant-1", "refs/tags/a/v1", "refs/heads/a..b", "refs/heads/a/.b",
		"refs/heads/a.lock", "refs/heads/a.lock/b", "refs/heads/a/", "refs/heads//a", "refs/heads/a.", "refs/heads/a b",
		"refs/heads/a~1", "refs/heads/a^", "refs/heads/a:b", "refs/heads/a?", "refs/heads/a*", "refs/heads/a[b", "refs/heads/a\\b",
		"refs/heads/a@{1}", "refs/heads/@", "refs/heads/a\x01", "refs/heads/a\x7f", "refs/heads/é", "refs/heads/-a", "refs/heads/a@b",
		"refs/heads/.a", "refs/heads/a/..", "refs/heads/a..", "refs/heads/a.b.lock", "refs/heads/a/b.lockx",
	} {
		err := exec.Command("git", "check-ref-format", name).Run()
		if got, want := validRefName(name), err == nil; got != want {
			t.Errorf("%q: valid %v, git says %v", name, got, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func revParse(r *gittest.PorchRepo, ref string) string {
	out, err := exec.Command("git", "-C", r.Dir, "rev-parse", "-q", "--verify", ref).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
}

func mkfile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// findLocks lists the lock files below a git folder.
func findLocks(t *testing.T, dir string) []string {
	t.Helper()
	var locks []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return locks
}

// TestPorchRefsFromFiles: the refs read from the files (loose over
// packed, locks and refs/remotes left out) are those git lists.
func TestPorchRefsFromFiles(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	r.Git("pack-refs", "--all", "--prune")
	r.Git("update-ref", "refs/heads/main", c["a2"])       // loose over packed
	r.Git("update-ref", "refs/heads/drafts/z/v", c["a1"]) // loose only
	r.Git("update-ref", "refs/remotes/origin/x", c["a1"]) // not Porch's
	r.Git("-c", "user.name=t", "-c", "user.email=t@x", "tag", "-a", "-m", "annotated", "annotated", c["a1"])
	mkfile(t, filepath.Join(r.Dir, "refs/heads/held.lock"), c["a3"]+"\n")
	mkfile(t, filepath.Join(r.Dir, "refs/heads/not a ref"), c["a3"]+"\n")
	g := open(t, r.Dir)
	got, err := g.PorchRefs()
	if err != nil {
		t.Fatal(err)
	}
	var want []pkgrev.Ref // as git lists them (go-git would list the lock as a ref)
	for line := range strings.Lines(r.Git("for-each-ref", "--format=%(refname) %(objectname) %(*objectname)", "refs/heads", "refs/tags")) {
		f := strings.Fields(line)
		if f[0] == "warning:" { // ignoring ref with broken name refs/heads/not a ref
			continue
		}
		want = append(want, pkgrev.Ref{Name: f[0], Hash: f[1], Commit: f[len(f)-1]})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refs (-git +kptkit):\n%s", diff)
	}
	if len(got) < 10 {
		t.Errorf("only %d refs read", len(got))
	}
}
