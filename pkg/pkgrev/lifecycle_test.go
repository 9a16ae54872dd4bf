package pkgrev

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

var (
	at    = time.Unix(1767312000, 0).UTC()
	repo  = Repository{Name: "deploy", Namespace: "default", URL: "https://example.com/deploy", Branch: "main", Directory: "clusters/a"}
	stamp = StampFor(repo, "", at)
)

// hash makes a fake commit hash from a letter.
func hash(c string) string {
	out := ""
	for range 40 {
		out += c
	}
	return out
}

// testSnapshot has one revision of each lifecycle of clusters/a/app, and a
// published team/db.
func testSnapshot() *Snapshot {
	const app = "clusters/a/app"
	s := &Snapshot{Repo: repo, Branch: hash("b"), Revisions: []Revision{
		{Name: "deploy.app.main", Package: "app", Path: app, Workspace: "main", Revision: -1, Lifecycle: "Published", Ref: "refs/heads/main", RefHash: hash("b"), Commit: hash("b"), Tree: hash("t")},
		{Name: "deploy.app.ws-d", Package: "app", Path: app, Workspace: "ws-d", Lifecycle: "Draft", Ref: DraftRef(app, "ws-d"), RefHash: hash("d"), Commit: hash("d"), Tree: hash("e")},
		{Name: "deploy.app.ws-p", Package: "app", Path: app, Workspace: "ws-p", Lifecycle: "Proposed", Ref: ProposedRef(app, "ws-p"), RefHash: hash("p"), Commit: hash("p"), Tree: hash("q")},
		{Name: "deploy.app.ws-1", Package: "app", Path: app, Workspace: "ws-1", Revision: 1, Lifecycle: "Published", Ref: TagRef(app, 1, ""), RefHash: hash("1"), Commit: hash("1")},
		{Name: "deploy.app.ws-3", Package: "app", Path: app, Workspace: "ws-3", Revision: 3, Lifecycle: "DeletionProposed", Ref: TagRef(app, 3, ""), RefHash: hash("3"), Commit: hash("3"),
			Deletion: DeletionProposedRef(app, 3, ""), DeletionHash: hash("3")},
		{Name: "deploy.team.db.ws-7", Package: "team/db", Path: "clusters/a/team/db", Workspace: "ws-7", Revision: 7, Lifecycle: "Published", Ref: "refs/tags/clusters/a/team/db/v7", RefHash: hash("7"), Commit: hash("7")},
	}}
	return s
}

const (
	ready    = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\ninfo:\n  readinessGates:\n  - conditionType: Ready\nstatus:\n  conditions:\n  - type: Ready\n    status: \"True\"\n"
	notReady = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\ninfo:\n  readinessGates:\n  - conditionType: Ready\nstatus:\n  conditions:\n  - type: Ready\n    status: \"False\"\n"
)

func TestVerbs(t *testing.T) {
	t.Parallel()
	const app = "clusters/a/app"
	files := kptpkg.Files{"Kptfile": []byte(ready)}
	msg := func(m string, err error) string { return m }
	for _, tc := range []struct {
		name    string
		do      func(s *Snapshot, rev *Revision) (Change, error)
		rev     string
		want    Change
		wantErr string
	}{
		{"propose a draft", func(s *Snapshot, r *Revision) (Change, error) { return Propose(s, r, files, stamp) }, "deploy.app.ws-d", Change{
			Commit: &NewCommit{Base: hash("d"), Parents: []string{hash("d")}, Path: app, Files: files, Message: msg(DraftMessage(app, "ws-d", RenderTask())), Author: stamp.Author, Committer: stamp.Committer},
			Refs:   []RefUpdate{{Name: ProposedRef(app, "ws-d"), ToCommit: true}, {Name: DraftRef(app, "ws-d"), Old: hash("d")}},
			Done:   "deploy.app.ws-d proposed"}, ""},
		{"propose a proposal", func(s *Snapshot, r *Revision) (Change, error) { return Propose(s, r, files, stamp) }, "deploy.app.ws-p",
			Change{Notice: "deploy.app.ws-p is already proposed"}, ""},
		{"propose a published revision", func(s *Snapshot, r *Revision) (Change, error) { return Propose(s, r, files, stamp) }, "deploy.app.ws-1",
			Change{}, "cannot propose Published package"},
		{"propose what is not ready", func(s *Snapshot, r *Revision) (Change, error) {
			return Propose(s, r, kptpkg.Files{"Kptfile": []byte(notReady)}, stamp)
		}, "deploy.app.ws-d", Change{}, "readiness conditions not met"},
		{"approve a proposal", func(s *Snapshot, r *Revision) (Change, error) { return Approve(s, r, []byte(ready), stamp) }, "deploy.app.ws-p", Change{
			Commit: &NewCommit{Base: hash("b"), Parents: []string{hash("b"), hash("p")}, Path: app, Tree: hash("q"), Message: msg(ApprovalMessage(app, "ws-p", 4)), Author: stamp.Author, Committer: stamp.Committer},
			Refs:   []RefUpdate{{Name: "refs/heads/main", Old: hash("b"), ToCommit: true}, {Name: "refs/tags/" + app + "/v4", ToCommit: true}, {Name: ProposedRef(app, "ws-p"), Old: hash("p")}},
			Done:   "deploy.app.ws-p approved"}, ""},
		{"approve what is not ready", func(s *Snapshot, r *Revision) (Change, error) { return Approve(s, r, []byte(notReady), stamp) }, "deploy.app.ws-p",
			Change{}, "readiness conditions not met"},
		{"approve a draft", func(s *Snapshot, r *Revision) (Change, error) { return Approve(s, r, nil, stamp) }, "deploy.app.ws-d",
			Change{}, "cannot change approval from Draft to Published"},
		{"approve a deletion proposal", func(s *Snapshot, r *Revision) (Change, error) { return Approve(s, r, nil, stamp) }, "deploy.app.ws-3",
			Change{Refs: []RefUpdate{{Name: DeletionProposedRef(app, 3, ""), Old: hash("3")}}, Done: "deploy.app.ws-3 approved"}, ""},
		{"approve a published revision", func(s *Snapshot, r *Revision) (Change, error) { return Approve(s, r, nil, stamp) }, "deploy.app.ws-1",
			Change{Done: "deploy.app.ws-1 approved"}, ""},
		{"reject a proposal", func(_ *Snapshot, r *Revision) (Change, error) { return Reject(r) }, "deploy.app.ws-p", Change{
			Refs: []RefUpdate{{Name: DraftRef(app, "ws-p"), New: hash("p")}, {Name: ProposedRef(app, "ws-p"), Old: hash("p")}},
			Done: "deploy.app.ws-p no longer proposed for approval"}, ""},
		{"reject a deletion proposal", func(_ *Snapshot, r *Revision) (Change, error) { return Reject(r) }, "deploy.app.ws-3", Change{
			Refs: []RefUpdate{{Name: DeletionProposedRef(app, 3, ""), Old: hash("3")}}, Done: "deploy.app.ws-3 no longer proposed for deletion"}, ""},
		{"reject a draft", func(_ *Snapshot, r *Revision) (Change, error) { return Reject(r) }, "deploy.app.ws-d",
			Change{}, "cannot reject deploy.app.ws-d with lifecycle 'Draft'"},
		{"propose to delete", func(_ *Snapshot, r *Revision) (Change, error) { return ProposeDelete(r) }, "deploy.app.ws-1", Change{
			Refs: []RefUpdate{{Name: DeletionProposedRef(app, 1, ""), New: hash("1")}}, Done: "deploy.app.ws-1 proposed for deletion"}, ""},
		{"propose to delete the branch head", func(_ *Snapshot, r *Revision) (Change, error) { return ProposeDelete(r) }, "deploy.app.main", Change{
			Refs: []RefUpdate{{Name: "refs/heads/deletionProposed/" + app + "/main", New: hash("b")}}, Done: "deploy.app.main proposed for deletion"}, ""},
		{"propose to delete again", func(_ *Snapshot, r *Revision) (Change, error) { return ProposeDelete(r) }, "deploy.app.ws-3",
			Change{Notice: "deploy.app.ws-3 is already proposed for deletion"}, ""},
		{"propose to delete a draft", func(_ *Snapshot, r *Revision) (Change, error) { return ProposeDelete(r) }, "deploy.app.ws-d",
			Change{}, "can only propose published packages for deletion; package deploy.app.ws-d is not published"},
		{"delete a draft", func(s *Snapshot, r *Revision) (Change, error) { return Delete(s, r, "", stamp) }, "deploy.app.ws-d",
			Change{Refs: []RefUpdate{{Name: DraftRef(app, "ws-d"), Old: hash("d")}}, Done: "deploy.app.ws-d deleted"}, ""},
		{"delete a deletion proposal", func(s *Snapshot, r *Revision) (Change, error) { return Delete(s, r, "", stamp) }, "deploy.app.ws-3", Change{
			Refs: []RefUpdate{{Name: "refs/tags/" + app + "/v3", Old: hash("3")}, {Name: DeletionProposedRef(app, 3, ""), Old: hash("3")}}, Done: "deploy.app.ws-3 deleted"}, ""},
		{"delete a published revision", func(s *Snapshot, r *Revision) (Change, error) { return Delete(s, r, "", stamp) }, "deploy.app.ws-1", Change{},
			`failed to delete package revision "deploy.app.ws-1": published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion`},
		{"delete an upstream", func(s *Snapshot, r *Revision) (Change, error) {
			return Delete(s, r, "edge.app.packagevariant-1", stamp)
		}, "deploy.app.ws-3", Change{},
			"cannot delete package revision, it is referenced as upstream by: edge.app.packagevariant-1"},
		{"push to a draft", func(_ *Snapshot, r *Revision) (Change, error) { return Push(r, files, hash("d"), stamp) }, "deploy.app.ws-d", Change{
			Commit: &NewCommit{Base: hash("d"), Parents: []string{hash("d")}, Path: app, Files: files, Message: msg(DraftMessage(app, "ws-d", RenderTask())), Author: stamp.Author, Committer: stamp.Committer},
			Refs:   []RefUpdate{{Name: DraftRef(app, "ws-d"), Old: hash("d"), ToCommit: true}},
			Done:   "deploy.app.ws-d pushed"}, ""},
		{"push what was pulled before", func(_ *Snapshot, r *Revision) (Change, error) { return Push(r, files, hash("x"), stamp) }, "deploy.app.ws-d", Change{},
			`Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev "deploy.app.ws-d": the object has been modified; please apply your changes to the latest version and try again`},
		{"push to a proposal", func(_ *Snapshot, r *Revision) (Change, error) { return Push(r, files, hash("p"), stamp) }, "deploy.app.ws-p", Change{},
			`cannot update a package revision with lifecycle value "Proposed"; package must be Draft`},
		{"push no Kptfile", func(_ *Snapshot, r *Revision) (Change, error) {
			return Push(r, kptpkg.Files{"a.yaml": nil}, hash("d"), stamp)
		}, "deploy.app.ws-d", Change{},
			"package must contain Kptfile at root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := testSnapshot()
			rev, ok := s.Find(tc.rev)
			if !ok {
				t.Fatalf("no %s", tc.rev)
			}
			got, err := tc.do(s, rev)
			if gotErr := errText(err); gotErr != tc.wantErr {
				t.Fatalf("error %q, want %q", gotErr, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("change (-want +got):\n%s", diff)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestDeleteBranchHeadAndForeignTag(t *testing.T) {
	t.Parallel()
	s := testSnapshot()
	rev, _ := s.Find("deploy.app.main")
	rev.Lifecycle, rev.Deletion, rev.DeletionHash = "DeletionProposed", DeletionProposedRef(rev.Path, -1, "main"), hash("b")
	got, err := Delete(s, rev, "", stamp)
	want := Change{
		Commit: &NewCommit{Base: hash("b"), Parents: []string{hash("b")}, Path: rev.Path, Remove: true, Message: "Delete clusters/a/app", Author: stamp.Author, Committer: stamp.Committer},
		Refs:   []RefUpdate{{Name: "refs/heads/main", Old: hash("b"), ToCommit: true}, {Name: "refs/heads/deletionProposed/clusters/a/app/main", Old: hash("b")}},
		Done:   "deploy.app.main deleted",
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
	// A tag Porch would not have made for the revision (app/1, no v).
	tagged, _ := s.Find("deploy.app.ws-3")
	tagged.Ref = "refs/tags/clusters/a/app/3"
	if _, err := Delete(s, tagged, "", stamp); errText(err) != "cannot delete package tagged with a tag that is not specific to the package: refs/tags/clusters/a/app/3" {
		t.Errorf("foreign tag: %v", err)
	}
	s.Branch = ""
	p, _ := s.Find("deploy.app.ws-p")
	if _, err := Approve(s, p, nil, stamp); errText(err) != `failed to find "main" branch` {
		t.Errorf("approve without a branch: %v", err)
	}
}

func TestCreateBranch(t *testing.T) {
	t.Parallel()
	porchSig := Signature{Name: PorchName, Email: PorchEmail, When: at}
	want := Change{
		Commit: &NewCommit{Files: kptpkg.Files{"README.md": []byte("Created by porch")}, Message: "Initial commit: Creating main branch", Author: porchSig, Committer: porchSig},
		Refs:   []RefUpdate{{Name: "refs/heads/main", ToCommit: true}},
	}
	if diff := cmp.Diff(want, CreateBranch(&Snapshot{Repo: repo}, at)); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
}

func TestNumbering(t *testing.T) {
	t.Parallel()
	s := testSnapshot()
	if got := s.NextRevision("clusters/a/app"); got != 4 {
		t.Errorf("next revision of app: %d, want 4 (after the DeletionProposed v3)", got)
	}
	if got := s.NextRevision("clusters/a/new"); got != 1 {
		t.Errorf("next revision of a new package: %d", got)
	}
	markLatest(s.Revisions)
	var latest []string
	for _, r := range s.Revisions {
		if r.Latest {
			latest = append(latest, r.Name)
		}
	}
	if diff := cmp.Diff([]string{"deploy.app.ws-3", "deploy.team.db.ws-7"}, latest); diff != "" {
		t.Errorf("latest (-want +got):\n%s", diff)
	}
}
