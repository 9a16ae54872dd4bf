package pkgrev

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/porch"
)

func TestNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ repo, pkg, ws, want string }{
		{"deploy", "app", "packagevariant-1", "deploy.app.packagevariant-1"},
		{"deploy", "team/db", "v1", "deploy.team.db.v1"},
		{"deploy", "/team/db/", "main", "deploy.team.db.main"},
		{"deploy", "", "main", ""},
		{"", "app", "main", ""},
		{"deploy", "app", "", ""},
	} {
		if got := Name(tc.repo, tc.pkg, tc.ws); got != tc.want {
			t.Errorf("Name(%q, %q, %q) = %q, want %q", tc.repo, tc.pkg, tc.ws, got, tc.want)
		}
	}
	if got := RepositoryName("deploy.team.db.v1"); got != "deploy" {
		t.Errorf("RepositoryName: %q", got)
	}
	// Porch's own test of the uid (pkg/externalrepo/git/package_test.go).
	if got := UID("my-namespace", "my-repo.my-package.my-workspace"); got != "7007e8aa-0928-50f9-b980-92a44942f055" {
		t.Errorf("UID = %s", got)
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		full, dir string
		in        bool
		rel       string
	}{
		{"app", "", true, "app"},
		{"clusters/edge1/app", "clusters/edge1", true, "app"},
		{"clusters/edge1", "clusters/edge1", true, ""},
		{"clusters/edge10/app", "clusters/edge1", false, "0/app"},
		{"other/app", "clusters", false, "other/app"},
	} {
		if got := InDirectory(tc.full, tc.dir); got != tc.in {
			t.Errorf("InDirectory(%q, %q) = %v", tc.full, tc.dir, got)
		}
		if got := Relative(tc.full, tc.dir); got != tc.rel {
			t.Errorf("Relative(%q, %q) = %q, want %q", tc.full, tc.dir, got, tc.rel)
		}
	}
	if got := FullPath(Directory("/clusters/edge1/"), "app"); got != "clusters/edge1/app" {
		t.Errorf("FullPath = %q", got)
	}
	for s, want := range map[string]int{"v1": 1, "12": 12, "v0": 0, "main": -1, "v1.2.3": -1, "": -1, "vv1": -1} {
		if got := ParseRevision(s); got != want {
			t.Errorf("ParseRevision(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestParseRef(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]ParsedRef{
		"refs/heads/main":                             {Kind: RefBranch},
		"refs/heads/drafts/clusters/a/app/ws":         {Kind: RefDraft, Path: "clusters/a/app", Version: "ws"},
		"refs/heads/proposed/app/packagevariant-1":    {Kind: RefProposed, Path: "app", Version: "packagevariant-1"},
		"refs/heads/deletionProposed/app/v3":          {Kind: RefDeletionProposed, Path: "app", Version: "v3"},
		"refs/tags/app/v3":                            {Kind: RefTag, Path: "app", Version: "v3"},
		"refs/tags/team/db/v1.2.3":                    {Kind: RefTag, Path: "team/db", Version: "v1.2.3"},
		"refs/tags/v1.0":                              {},
		"refs/heads/drafts/app":                       {},
		"refs/heads/feature":                          {},
		"refs/remotes/origin/drafts/app/ws":           {},
		"refs/heads/drafts/main-is-not-a-draft/other": {Kind: RefDraft, Path: "main-is-not-a-draft", Version: "other"},
	} {
		if diff := cmp.Diff(want, ParseRef(name, "main")); diff != "" {
			t.Errorf("ParseRef(%q) (-want +got):\n%s", name, diff)
		}
	}
	for got, want := range map[string]string{
		DraftRef("clusters/a/app", "ws"):                 "refs/heads/drafts/clusters/a/app/ws",
		ProposedRef("app", "ws"):                         "refs/heads/proposed/app/ws",
		TagRef("app", 3, "packagevariant-1"):             "refs/tags/app/v3",
		TagRef("app", -1, "v1.2.3"):                      "refs/tags/app/v1.2.3",
		DeletionProposedRef("app", 3, "x"):               "refs/heads/deletionProposed/app/v3",
		DeletionProposedRef("app", -1, "main"):           "refs/heads/deletionProposed/app/main",
		ShortRef("refs/tags/app/v2"):                     "app/v2",
		ShortRef("refs/heads/drafts/app/ws"):             "drafts/app/ws",
		ShortRef("refs/heads/main"):                      "main",
		BranchRef("deployments"):                         "refs/heads/deployments",
		ShortRef("0123456789abcdef0123456789abcdef0123"): "0123456789abcdef0123456789abcdef0123",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	clone, err := DraftMessage("app", "packagevariant-1", CloneTask("catalog.app.v2"))
	if err != nil {
		t.Fatal(err)
	}
	upgrade, _ := DraftMessage("a/b", "packagevariant-2", UpgradeTask("c.b.v1", "c.b.v2", "d.b.packagevariant-1"))
	edit, _ := DraftMessage("a/b", "packagevariant-3", EditTask("d.b.packagevariant-1"))
	none, _ := DraftMessage("a/b", "w", nil)
	approval, _ := ApprovalMessage("clusters/a/app", "packagevariant-1", 3)
	for _, tc := range []struct{ got, want string }{
		{clone, "Creating new revision by cloning\n\n\nkpt:{\"package\":\"app\",\"workspaceName\":\"packagevariant-1\",\"revision\":\"0\",\"task\":{\"type\":\"clone\",\"clone\":{\"upstreamRef\":{\"upstreamRef\":{\"name\":\"catalog.app.v2\"}}}}}\n"},
		{upgrade, "Upgrading revision\n\n\nkpt:{\"package\":\"a/b\",\"workspaceName\":\"packagevariant-2\",\"revision\":\"0\",\"task\":{\"type\":\"upgrade\",\"upgrade\":{\"oldUpstreamRef\":{\"name\":\"c.b.v1\"},\"newUpstreamRef\":{\"name\":\"c.b.v2\"},\"localPackageRevisionRef\":{\"name\":\"d.b.packagevariant-1\"},\"strategy\":\"resource-merge\"}}}\n"},
		{edit, "Creating new revision by copying previous revision\n\n\nkpt:{\"package\":\"a/b\",\"workspaceName\":\"packagevariant-3\",\"revision\":\"0\",\"task\":{\"type\":\"edit\",\"edit\":{\"sourceRef\":{\"name\":\"d.b.packagevariant-1\"}}}}\n"},
		{none, "Intermediate commit\n\n\nkpt:{\"package\":\"a/b\",\"workspaceName\":\"w\",\"revision\":\"0\"}\n"},
		{approval, "Approving package revision clusters/a/app/3\n\nkpt:{\"package\":\"clusters/a/app\",\"workspaceName\":\"packagevariant-1\",\"revision\":\"3\"}\n"},
		{taskMessage(&porch.Task{Type: "push"}), "Intermediate commit: push"},
		{taskMessage(&porch.Task{Type: "init"}), "Creating new empty revision"},
		{DeleteMessage("a/b"), "Delete a/b"},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("message (-want +got):\n%s", diff)
		}
	}
}

func TestReadAnnotations(t *testing.T) {
	t.Parallel()
	msg := "Approve\n\n  kpt:{\"package\":\"a\",\"workspaceName\":\"w\",\"revision\":\"1\"}  \nkpt:{invalid}\nkpt:{\"package\":\"b\",\"task\":{\"type\":\"render\"}}\nnot kpt:{}\n"
	got, err := ReadAnnotations(msg)
	want := []Annotation{{Package: "a", WorkspaceName: "w", Revision: "1"}, {Package: "b", Task: &porch.Task{Type: "render"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if err == nil || err.Error() != `annotation "kpt:{invalid}": invalid character 'i' looking for beginning of object key string` {
		t.Errorf("error: %v", err)
	}
	if WorkspaceOf(got, "a") != "w" || WorkspaceOf(got, "b") != "" {
		t.Error("WorkspaceOf")
	}
}

// FuzzAnnotations holds the reader of `kpt:` annotations: any message reads
// without a panic (annotations or a clean error), and an annotation written
// into a message is read back as it was.
func FuzzAnnotations(f *testing.F) {
	f.Add("Rendering package\n", "app", "ws", "0", "render", "kpt:{\"package\":\"a\"}\nkpt:{")
	f.Add("", "a/b", "", "3", "", "kpt:{\"task\":{\"type\":\"clone\",\"clone\":{\"upstreamRef\":{\"upstreamRef\":{\"name\":\"x\"}}}}}")
	f.Add("x\nkpt:null", "<&>", "\u2028", "\"", "clone", "kpt:[1]\n kpt:{\"revision\":1}")
	f.Fuzz(func(t *testing.T, message, pkg, ws, rev, task, other string) {
		_, _ = ReadAnnotations(other)
		a := Annotation{Package: pkg, WorkspaceName: ws, Revision: rev}
		if task != "" {
			a.Task = &porch.Task{Type: task}
		}
		before, _ := ReadAnnotations(message)
		written, err := Annotate(message, a)
		if err != nil {
			t.Fatalf("Annotate: %v", err)
		}
		after, _ := ReadAnnotations(written)
		if len(after) != len(before)+1 {
			t.Fatalf("%q: read %d annotations, want %d", written, len(after), len(before)+1)
		}
		if diff := cmp.Diff(a, after[len(after)-1]); diff != "" && validUTF8(pkg, ws, rev, task) {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}

// validUTF8 reports whether strings survive JSON unchanged.
func validUTF8(ss ...string) bool {
	for _, s := range ss {
		for _, r := range s {
			if r == 0xfffd {
				return false
			}
		}
	}
	return true
}

func TestSignatures(t *testing.T) {
	t.Parallel()
	at := time.Unix(1767312000, 0).UTC()
	porchSig := Signature{Name: PorchName, Email: PorchEmail, When: at}
	for _, tc := range []struct {
		author, email, user string
		want                Signature
	}{
		{"Bot", "bot@example.com", "alice", Signature{Name: "Bot", Email: "bot@example.com", When: at}},
		{"", "bot@example.com", "alice", Signature{Name: "bot@example.com", Email: "bot@example.com", When: at}},
		{"Bot", "", "alice", Signature{Name: "Bot", When: at}},
		{"", "", "alice", Signature{Name: "alice", Email: "alice", When: at}},
		{"", "", "", porchSig},
	} {
		author, committer := Signatures(Repository{Author: tc.author, Email: tc.email}, tc.user, at)
		if diff := cmp.Diff(tc.want, author); diff != "" {
			t.Errorf("author of %+v (-want +got):\n%s", tc, diff)
		}
		if committer != porchSig {
			t.Errorf("committer %+v", committer)
		}
	}
}
