package gitrepo

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// when is the clock of the changes the tests make (SOURCE_DATE_EPOCH
// 1767312000).
var when = time.Unix(1767312000, 0).UTC()

// files reads the files of a revision's package.
func files(t *testing.T, g *Repo, rev *pkgrev.Revision) kptpkg.Files {
	t.Helper()
	f, err := g.Files(rev.Commit, rev.Path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// find returns a revision of a fresh snapshot by name.
func find(t *testing.T, g *Repo, name string) (*pkgrev.Snapshot, *pkgrev.Revision) {
	t.Helper()
	s := snapshot(t, g, deployRepo)
	rev, ok := s.Find(name)
	if !ok {
		t.Fatalf("no revision %s", name)
	}
	return s, rev
}

func apply(t *testing.T, g *Repo, c pkgrev.Change, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	commit, err := g.Apply(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return commit
}

func TestPublishRoundTrip(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	g := open(t, r.Dir)
	st := pkgrev.StampFor(deployRepo, "", when)
	const app = "clusters/edge1/app"

	s, rev := find(t, g, "deploy.app.packagevariant-2")
	change, err := pkgrev.Propose(s, rev, files(t, g, rev), st)
	proposed := apply(t, g, change, err)

	s, rev = find(t, g, "deploy.app.packagevariant-2")
	if rev.Lifecycle != "Proposed" || rev.Commit != proposed {
		t.Fatalf("after propose: %+v", rev)
	}
	kf := files(t, g, rev)[kptfile.FileName]
	change, err = pkgrev.Approve(s, rev, kf, st)
	published := apply(t, g, change, err)

	// The render commit: Porch's message, the draft's tree unchanged, the
	// draft's head its parent.
	wantProposed := "tree " + r.Git("rev-parse", c["e2"]+"^{tree}") + "\nparent " + c["e2"] +
		"\nauthor Package Orchestration Service <porch@kpt.dev> 1767312000 +0000\ncommitter Package Orchestration Service <porch@kpt.dev> 1767312000 +0000\n\n" +
		"Rendering package\n\n\nkpt:{\"package\":\"" + app + "\",\"workspaceName\":\"packagevariant-2\",\"revision\":\"0\",\"task\":{\"type\":\"render\"}}\n"
	if diff := cmp.Diff(wantProposed, r.Git("cat-file", "-p", proposed)+"\n"); diff != "" {
		t.Errorf("proposal commit (-want +got):\n%s", diff)
	}
	// The approval: two parents, the branch's tree with the package's folder
	// replaced (as git builds it from the files), Porch's message.
	edited := gittest.With(gittest.With(map[string]string{"README.md": "Created by porch"}, app, gittest.AppEdited), "clusters/edge1/team/db", gittest.DBV2)
	wantPublished := "tree " + r.Tree(edited) + "\nparent " + c["a3"] + "\nparent " + proposed +
		"\nauthor Package Orchestration Service <porch@kpt.dev> 1767312000 +0000\ncommitter Package Orchestration Service <porch@kpt.dev> 1767312000 +0000\n\n" +
		"Approving package revision " + app + "/2\n\nkpt:{\"package\":\"" + app + "\",\"workspaceName\":\"packagevariant-2\",\"revision\":\"2\"}\n"
	if diff := cmp.Diff(wantPublished, r.Git("cat-file", "-p", published)+"\n"); diff != "" {
		t.Errorf("approval commit (-want +got):\n%s", diff)
	}
	wantRefs := strings.Join([]string{
		"refs/heads/deletionProposed/" + app + "/v1 " + c["a1"],
		"refs/heads/main " + published,
		"refs/heads/proposed/clusters/edge1/team/db/packagevariant-3 " + c["p2"],
		"refs/tags/" + app + "/v1 " + c["a1"],
		"refs/tags/" + app + "/v2 " + published,
		"refs/tags/clusters/edge1/team/db/v1 " + c["a2"],
		"refs/tags/clusters/edge2/app/v1 " + c["x1"],
		"refs/tags/v1.0 " + c["a1"],
	}, "\n")
	if diff := cmp.Diff(wantRefs, r.Refs()); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if got := r.Git("log", "-1", "--format=%P", published); got != c["a3"]+" "+proposed {
		t.Errorf("parents of the approval: %s", got)
	}
	r.Git("fsck", "--strict", "--no-dangling")

	s = snapshot(t, g, deployRepo)
	rev, _ = s.Find("deploy.app.packagevariant-2")
	if rev.Revision != 2 || rev.Lifecycle != "Published" || !rev.Latest {
		t.Errorf("published revision: %+v", rev)
	}
}

func TestRejectProposeDeleteDelete(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	g := open(t, r.Dir)
	st := pkgrev.StampFor(deployRepo, "", when)
	const db = "clusters/edge1/team/db"

	_, rev := find(t, g, "deploy.team.db.packagevariant-3")
	change, err := pkgrev.Reject(rev)
	apply(t, g, change, err)
	_, rev = find(t, g, "deploy.team.db.packagevariant-3")
	if rev.Lifecycle != "Draft" || rev.Ref != "refs/heads/drafts/"+db+"/packagevariant-3" || rev.Commit != c["p2"] {
		t.Errorf("after reject: %+v", rev)
	}

	_, rev = find(t, g, "deploy.team.db.packagevariant-1")
	change, err = pkgrev.ProposeDelete(rev)
	apply(t, g, change, err)
	s, rev := find(t, g, "deploy.team.db.packagevariant-1")
	if rev.Lifecycle != "DeletionProposed" || rev.Deletion != "refs/heads/deletionProposed/"+db+"/v1" {
		t.Errorf("after propose-delete: %+v", rev)
	}
	change, err = pkgrev.Delete(s, rev, "", st)
	apply(t, g, change, err)
	if got := r.Git("for-each-ref", "--format=%(refname)", "refs/tags/"+db, "refs/heads/deletionProposed/"+db); got != "" {
		t.Errorf("after del, refs left: %s", got)
	}
	// The number of the deleted tag is given again.
	if s := snapshot(t, g, deployRepo); s.NextRevision(db) != 1 {
		t.Errorf("next revision after deleting v1: %d", s.NextRevision(db))
	}
}

func TestDeleteBranchHead(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	g := open(t, r.Dir)
	st := pkgrev.StampFor(deployRepo, "alice", when)
	_, rev := find(t, g, "deploy.app.main")
	change, err := pkgrev.ProposeDelete(rev)
	apply(t, g, change, err)
	s, rev := find(t, g, "deploy.app.main")
	change, err = pkgrev.Delete(s, rev, "", st)
	commit := apply(t, g, change, err)
	want := "tree " + r.Tree(gittest.With(map[string]string{"README.md": "Created by porch"}, "clusters/edge1/team/db", gittest.DBV2)) +
		"\nparent " + c["a3"] + "\nauthor alice <alice> 1767312000 +0000\ncommitter Package Orchestration Service <porch@kpt.dev> 1767312000 +0000\n\nDelete clusters/edge1/app\n"
	if diff := cmp.Diff(want, r.Git("cat-file", "-p", commit)+"\n"); diff != "" {
		t.Errorf("delete commit (-want +got):\n%s", diff)
	}
	if got := r.Git("for-each-ref", "--format=%(refname)", "refs/heads/deletionProposed/clusters/edge1/app/main"); got != "" {
		t.Errorf("deletion proposal left: %s", got)
	}
}

func TestPushAndCreateBranch(t *testing.T) {
	t.Parallel()
	r := gittest.NewPlumb(t)
	g := open(t, r.Dir)
	repo := deployRepo
	repo.CreateBranch, repo.Author, repo.Email = true, "", "bot@example.com"
	refs, _ := g.PorchRefs()
	s, err := pkgrev.Read(repo, refs, g.Revisions())
	if err != nil {
		t.Fatal(err)
	}
	head := apply(t, g, pkgrev.CreateBranch(s, when), nil)
	if got, want := r.Git("cat-file", "-p", head), "tree "+r.Tree(map[string]string{"README.md": "Created by porch"})+
		"\nauthor Package Orchestration Service <porch@kpt.dev> 1767312000 +0000\ncommitter Package Orchestration Service <porch@kpt.dev> 1767312000 +0000\n\nInitial commit: Creating main branch"; got != want {
		t.Errorf("initial commit:\n%s\nwant\n%s", got, want)
	}
	// A draft made by hand on it, then pushed to.
	draft := r.Commit(gittest.With(map[string]string{"README.md": "Created by porch"}, "clusters/edge1/app", gittest.AppV1), "a draft", "x", "x", head)
	r.Ref("refs/heads/drafts/clusters/edge1/app/ws", draft)
	refs, _ = g.PorchRefs()
	s, _ = pkgrev.Read(repo, refs, g.Revisions())
	rev, _ := s.Find("deploy.app.ws")
	pushed := kptpkg.Files{"Kptfile": []byte(gittest.AppV1["Kptfile"]), "cm.yaml": []byte("changed\n"), "sub/x.yaml": []byte("x: 1\n")}
	change, err := pkgrev.Push(rev, pushed, rev.Commit, pkgrev.StampFor(repo, "", when))
	commit := apply(t, g, change, err)
	wantTree := r.Tree(gittest.With(map[string]string{"README.md": "Created by porch"}, "clusters/edge1/app",
		map[string]string{"Kptfile": gittest.AppV1["Kptfile"], "cm.yaml": "changed\n", "sub/x.yaml": "x: 1\n"}))
	if got := r.Git("rev-parse", commit+"^{tree}"); got != wantTree {
		t.Errorf("pushed tree %s, want %s", got, wantTree)
	}
	if got := r.Git("log", "-1", "--format=%an <%ae>|%P", commit); got != "bot@example.com <bot@example.com>|"+draft {
		t.Errorf("pushed commit: %s", got)
	}
	r.Git("fsck", "--strict", "--no-dangling")
}

func TestApplyRaceFailsCleanly(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	g := open(t, r.Dir)
	s, rev := find(t, g, "deploy.team.db.packagevariant-3")
	// Readiness aside (the fixture's proposal is not ready), approve as if
	// it were: the change moves three refs.
	change, err := pkgrev.Approve(s, rev, []byte(gittest.DBV2["Kptfile"]), pkgrev.StampFor(deployRepo, "", when))
	if err != nil {
		t.Fatal(err)
	}
	before := r.Refs()
	// Another writer moves the branch after kptkit read it.
	r.Git("update-ref", "refs/heads/main", c["a2"])
	moved := strings.Replace(before, "refs/heads/main "+c["a3"], "refs/heads/main "+c["a2"], 1)
	_, err = g.Apply(context.Background(), change)
	want := "cannot lock ref 'refs/heads/main': is at " + c["a2"] + " but expected " + c["a3"]
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("a raced update: %v", err)
	}
	if diff := cmp.Diff(moved, r.Refs()); diff != "" {
		t.Errorf("refs after a failed update (-want +got):\n%s", diff)
	}
	r.Git("fsck", "--strict")
}

func TestApplyRefusals(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	g := open(t, r.Dir)
	for name, tc := range map[string]struct {
		change pkgrev.Change
		want   string
	}{
		"remote": {pkgrev.Change{Refs: []pkgrev.RefUpdate{{Name: "refs/remotes/origin/main", New: c["a1"]}}},
			"refusing to write refs/remotes/origin/main: kptkit writes only refs/heads/ and refs/tags/"},
		"tag move": {pkgrev.Change{Refs: []pkgrev.RefUpdate{{Name: "refs/tags/clusters/edge1/app/v1", Old: c["a1"], New: c["a2"]}}},
			"refusing to move the tag refs/tags/clusters/edge1/app/v1: a published revision's tag never moves"},
		"bad name": {pkgrev.Change{Refs: []pkgrev.RefUpdate{{Name: "refs/heads/a..b", New: c["a1"]}}},
			"refusing to write refs/heads/a..b: not a valid ref name"},
	} {
		_, err := g.Apply(context.Background(), tc.change)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	// A branch checked out in a work tree is never moved.
	clone := t.TempDir() + "/clone"
	if out, err := exec.Command("git", "clone", "-q", r.Dir, clone).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	wc := open(t, clone)
	_, err := wc.Apply(context.Background(), pkgrev.Change{Refs: []pkgrev.RefUpdate{{Name: "refs/heads/main", Old: c["a3"], New: c["a2"]}}})
	if err == nil || !strings.Contains(err.Error(), "cannot move branch main of "+clone+": it is checked out in the work tree") {
		t.Errorf("moving a checked-out branch: %v", err)
	}
}

// TestWriteRefusesHostilePaths: a file whose path could leave its package,
// or that names a .git folder, is never written into a tree.
func TestWriteRefusesHostilePaths(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	g := open(t, r.Dir)
	for _, p := range []string{"../escape.yaml", "/abs.yaml", "a/./b.yaml", "sub/.git/config", ".GIT/hooks/pre-commit", "a\\b.yaml"} {
		_, err := g.WriteCommit(&pkgrev.NewCommit{Base: r.Commits["a3"], Path: "clusters/edge1/app", Files: kptpkg.Files{"Kptfile": nil, p: []byte("x")}, Message: "m"})
		if err == nil {
			t.Errorf("%q was written", p)
		}
	}
}

// TestGitEnvironment: git runs in the repository opened, whatever GIT_DIR
// the environment names (not parallel: it sets the environment).
func TestGitEnvironment(t *testing.T) {
	r := gittest.NewPorchRepo(t)
	other := gittest.NewPlumb(t)
	t.Setenv("GIT_DIR", other.Dir)
	g := open(t, r.Dir)
	c := pkgrev.Change{Refs: []pkgrev.RefUpdate{{Name: "refs/heads/drafts/clusters/edge1/app/x", New: r.Commits["a1"]}}}
	if _, err := g.Apply(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	// Read back in process: git itself would follow GIT_DIR.
	if got, err := g.Resolve("drafts/clusters/edge1/app/x"); err != nil || got != r.Commits["a1"] {
		t.Errorf("the ref is at %q: %v", got, err)
	}
	if refs, err := open(t, other.Dir).PorchRefs(); err != nil || len(refs) != 0 {
		t.Errorf("GIT_DIR's repository was written: %v %v", refs, err)
	}
}
