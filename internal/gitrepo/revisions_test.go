package gitrepo

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// deployRepo is the Repository of gittest's Porch fixture.
var deployRepo = pkgrev.Repository{Name: "deploy", Namespace: "default", URL: "https://example.com/deploy.git", Branch: "main", Directory: "clusters/edge1"}

// snapshot reads a repository's package revisions.
func snapshot(t *testing.T, g *Repo, repo pkgrev.Repository) *pkgrev.Snapshot {
	t.Helper()
	refs, err := g.PorchRefs()
	if err != nil {
		t.Fatal(err)
	}
	s, err := pkgrev.Read(repo, refs, g.Revisions())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func open(t *testing.T, dir string) *Repo {
	t.Helper()
	g, err := Open(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// tree returns the hash of a commit's folder, read by git.
func tree(t *testing.T, p *gittest.Plumb, commit, dir string) string {
	t.Helper()
	return p.Git("rev-parse", commit+":"+dir)
}

func TestReadPorchLayout(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	c := r.Commits
	s := snapshot(t, open(t, r.Dir), deployRepo)
	const app, db = "clusters/edge1/app", "clusters/edge1/team/db"
	want := []pkgrev.Revision{
		{Name: "deploy.app.main", Package: "app", Path: app, Workspace: "main", Revision: -1, Lifecycle: "Published",
			Ref: "refs/heads/main", RefHash: c["a3"], Commit: c["a3"], Tree: tree(t, r.Plumb, c["a3"], app)},
		{Name: "deploy.app.packagevariant-2", Package: "app", Path: app, Workspace: "packagevariant-2", Lifecycle: "Draft",
			Ref: "refs/heads/drafts/" + app + "/packagevariant-2", RefHash: c["e2"], Commit: c["e2"], Tree: tree(t, r.Plumb, c["e2"], app)},
		{Name: "deploy.app.packagevariant-1", Package: "app", Path: app, Workspace: "packagevariant-1", Revision: 1, Lifecycle: "DeletionProposed", Latest: true,
			Ref: "refs/tags/" + app + "/v1", RefHash: c["a1"], Commit: c["a1"], Tree: tree(t, r.Plumb, c["a1"], app),
			Deletion: "refs/heads/deletionProposed/" + app + "/v1", DeletionHash: c["a1"]},
		{Name: "deploy.team.db.main", Package: "team/db", Path: db, Workspace: "main", Revision: -1, Lifecycle: "Published",
			Ref: "refs/heads/main", RefHash: c["a3"], Commit: c["a3"], Tree: tree(t, r.Plumb, c["a3"], db)},
		{Name: "deploy.team.db.packagevariant-3", Package: "team/db", Path: db, Workspace: "packagevariant-3", Lifecycle: "Proposed",
			Ref: "refs/heads/proposed/" + db + "/packagevariant-3", RefHash: c["p2"], Commit: c["p2"], Tree: tree(t, r.Plumb, c["p2"], db)},
		{Name: "deploy.team.db.packagevariant-1", Package: "team/db", Path: db, Workspace: "packagevariant-1", Revision: 1, Lifecycle: "Published", Latest: true,
			Ref: "refs/tags/" + db + "/v1", RefHash: c["a2"], Commit: c["a2"], Tree: tree(t, r.Plumb, c["a2"], db)},
	}
	if diff := cmp.Diff(want, s.Revisions); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
	if s.Branch != c["a3"] {
		t.Errorf("branch head %s, want %s", s.Branch, c["a3"])
	}
	// db/v2's tag was deleted: its number is given again.
	if got := s.NextRevision(db); got != 2 {
		t.Errorf("next revision of db: %d, want 2", got)
	}
	if got := s.NextRevision(app); got != 2 {
		t.Errorf("next revision of app: %d, want 2", got)
	}
}

func TestReadWholeRepository(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	repo := deployRepo
	repo.Directory = ""
	s := snapshot(t, open(t, r.Dir), repo)
	var got []string
	for _, rev := range s.Revisions {
		got = append(got, rev.Name+" "+rev.Lifecycle)
	}
	want := []string{
		"deploy.clusters.edge1.app.main Published",
		"deploy.clusters.edge1.app.packagevariant-2 Draft",
		"deploy.clusters.edge1.app.packagevariant-1 DeletionProposed",
		"deploy.clusters.edge2.app.v1 Published",
		"deploy.clusters.edge1.team.db.main Published",
		"deploy.clusters.edge1.team.db.packagevariant-3 Proposed",
		"deploy.clusters.edge1.team.db.packagevariant-1 Published",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
}

func TestReadRepositoryProblems(t *testing.T) {
	t.Parallel()
	r := gittest.NewPlumb(t)
	g := open(t, r.Dir)
	refs, err := g.PorchRefs()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pkgrev.Read(deployRepo, refs, g.Revisions()); err == nil || err.Error() != `branch "main" doesn't exist` {
		t.Errorf("a repository without its branch: %v", err)
	}
	create := deployRepo
	create.CreateBranch = true
	s, err := pkgrev.Read(create, refs, g.Revisions())
	if err != nil || s.Branch != "" || len(s.Revisions) != 0 {
		t.Errorf("a repository without its branch, with createBranch: %+v, %v", s, err)
	}
	if _, err := Open("missing", t.TempDir()+"/missing"); err == nil {
		t.Error("opened a missing repository")
	}
	if _, err := Open("plain", t.TempDir()); err == nil {
		t.Error("opened a folder that is not a repository")
	}
}
