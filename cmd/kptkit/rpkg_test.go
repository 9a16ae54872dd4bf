package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// rpkgFleet is a cluster with two Repositories: deploy (gittest's Porch
// fixture, directory clusters/edge1) and catalog (app and db, v1 each),
// both named by https URLs that --repo-map maps to the local repositories.
type rpkgFleet struct {
	deploy, catalog *gittest.Plumb
	commits         map[string]string
	cluster         string
}

const rpkgCluster = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: deploy
  namespace: default
spec:
  type: git
  deployment: true
  git:
    repo: https://example.com/deploy.git
    directory: /clusters/edge1
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: catalog
spec:
  type: git
  git:
    repo: https://example.com/catalog.git
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: elsewhere
  namespace: prod
spec:
  git:
    repo: https://example.com/missing.git
`

func newRpkgFleet(t *testing.T) *rpkgFleet {
	t.Helper()
	d := gittest.NewPorchRepo(t)
	c := gittest.NewPlumb(t)
	files := map[string]string{"app/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n", "db/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\n"}
	v1 := c.Commit(files, "catalog v1", "Platform", "platform@example.com")
	c.Ref("refs/heads/main", v1)
	c.Ref("refs/tags/app/v1", v1)
	c.Ref("refs/tags/db/v1", v1)
	cluster := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(cluster, []byte(rpkgCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	return &rpkgFleet{deploy: d.Plumb, catalog: c, commits: d.Commits, cluster: cluster}
}

// rpkg runs kptkit rpkg <args> on the fleet.
func (f *rpkgFleet) rpkg(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	full := append([]string{"rpkg"}, args...)
	full = append(full, "--cluster", f.cluster,
		"--repo-map", "https://example.com/deploy.git="+f.deploy.Dir, "--repo-map", "https://example.com/catalog.git="+f.catalog.Dir)
	return runKptkit(t, full...)
}

// golden compares got with testdata/rpkg/<name> (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", "rpkg", name)
	if krmtest.Update() {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/kptkit -run %s -update writes it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", file, diff)
	}
}

func TestRpkgGet(t *testing.T) {
	t.Parallel()
	f := newRpkgFleet(t)
	out, stderr, code := f.rpkg(t, "get")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "get.txt", out)
	out, stderr, code = f.rpkg(t, "get", "--json")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "get.json", out)

	out, _, code = f.rpkg(t, "get", "deploy.team.db.packagevariant-3")
	want := "NAME                              PACKAGE   WORKSPACENAME      REVISION   LATEST   LIFECYCLE   REPOSITORY\n" +
		"deploy.team.db.packagevariant-3   team/db   packagevariant-3   0          false    Proposed    deploy\n"
	if code != 0 || out != want {
		t.Errorf("get NAME: exit %d\n%s", code, cmp.Diff(want, out))
	}
	for _, name := range []string{"deploy.app.nope", "nope.app.v1"} {
		out, stderr, code = f.rpkg(t, "get", name)
		if code != 1 || out != "" || stderr != "kptkit rpkg get: packagerevisions.porch.kpt.dev \""+name+"\" not found\n" {
			t.Errorf("get %s: exit %d, %q %q", name, code, out, stderr)
		}
	}
	out, stderr, code = f.rpkg(t, "get", "-n", "prod")
	if code != 1 || out != "" || !strings.HasPrefix(stderr, "kptkit rpkg get: Repository elsewhere: git repository \"https://example.com/missing.git\" is not local") {
		t.Errorf("get -n prod: exit %d, %q %q", code, out, stderr)
	}
}

func TestRpkgPublish(t *testing.T) {
	t.Parallel()
	f := newRpkgFleet(t)
	for _, step := range []struct {
		args           []string
		stdout, stderr string
		code           int
	}{
		{[]string{"propose", "deploy.app.packagevariant-2"}, "deploy.app.packagevariant-2 proposed\n", "", 0},
		{[]string{"propose", "deploy.app.packagevariant-2"}, "", "deploy.app.packagevariant-2 is already proposed\n", 0},
		{[]string{"approve", "deploy.app.packagevariant-2", "deploy.app.nope"}, "deploy.app.packagevariant-2 approved\n",
			"deploy.app.nope failed (packagerevisions.porch.kpt.dev \"deploy.app.nope\" not found)\n", 1},
		{[]string{"approve", "deploy.team.db.packagevariant-3"}, "", "deploy.team.db.packagevariant-3 failed (readiness conditions not met)\n", 1},
		{[]string{"reject", "deploy.team.db.packagevariant-3"}, "deploy.team.db.packagevariant-3 no longer proposed for approval\n", "", 0},
		{[]string{"propose", "deploy.team.db.packagevariant-3"}, "", "deploy.team.db.packagevariant-3 failed (readiness conditions not met)\n", 1},
		{[]string{"del", "deploy.team.db.packagevariant-3"}, "deploy.team.db.packagevariant-3 deleted\n", "", 0},
	} {
		out, stderr, code := f.rpkg(t, step.args...)
		if out != step.stdout || stderr != step.stderr || code != step.code {
			t.Errorf("rpkg %s: exit %d, stdout %q, stderr %q", strings.Join(step.args, " "), code, out, stderr)
		}
	}
	out, _, _ := f.rpkg(t, "get")
	golden(t, "published.txt", out)
	published := f.deploy.Git("rev-parse", "refs/tags/clusters/edge1/app/v2")
	if got := f.deploy.Git("rev-parse", "refs/heads/main"); got != published {
		t.Errorf("main at %s, the new tag at %s", got, published)
	}
	if got := f.deploy.Git("log", "-1", "--format=%P%n%B", published); !strings.HasPrefix(got, f.commits["a3"]+" ") ||
		!strings.HasSuffix(got, "Approving package revision clusters/edge1/app/2\n\nkpt:{\"package\":\"clusters/edge1/app\",\"workspaceName\":\"packagevariant-2\",\"revision\":\"2\"}") {
		t.Errorf("approval commit:\n%s", got)
	}
	f.deploy.Git("fsck", "--strict", "--no-dangling")
}

func TestRpkgDelete(t *testing.T) {
	t.Parallel()
	f := newRpkgFleet(t)
	for _, step := range []struct {
		args           []string
		stdout, stderr string
		code           int
	}{
		{[]string{"del", "deploy.team.db.packagevariant-1"}, "", `deploy.team.db.packagevariant-1 failed (failed to delete package revision "deploy.team.db.packagevariant-1": published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion)` + "\n", 1},
		{[]string{"propose-delete", "catalog.app.v1", "deploy.team.db.packagevariant-1"}, "catalog.app.v1 proposed for deletion\ndeploy.team.db.packagevariant-1 proposed for deletion\n", "", 0},
		{[]string{"propose-delete", "deploy.team.db.packagevariant-1"}, "", "deploy.team.db.packagevariant-1 is already proposed for deletion\n", 0},
		{[]string{"del", "catalog.app.v1"}, "", "catalog.app.v1 failed (cannot delete package revision, it is referenced as upstream by: deploy.app.packagevariant-1)\n", 1},
		{[]string{"approve", "catalog.app.v1"}, "catalog.app.v1 approved\n", "", 0},
		{[]string{"del", "deploy.team.db.packagevariant-1"}, "deploy.team.db.packagevariant-1 deleted\n", "", 0},
		{[]string{"propose-delete", "deploy.app.packagevariant-2"}, "", "deploy.app.packagevariant-2 failed (can only propose published packages for deletion; package deploy.app.packagevariant-2 is not published)\n", 1},
		{[]string{"reject", "deploy.app.packagevariant-1"}, "deploy.app.packagevariant-1 no longer proposed for deletion\n", "", 0},
	} {
		out, stderr, code := f.rpkg(t, step.args...)
		if out != step.stdout || stderr != step.stderr || code != step.code {
			t.Errorf("rpkg %s: exit %d, stdout %q, stderr %q", strings.Join(step.args, " "), code, out, stderr)
		}
	}
	want := strings.Join([]string{
		"refs/heads/drafts/clusters/edge1/app/packagevariant-2 " + f.commits["e2"],
		"refs/heads/main " + f.commits["a3"],
		"refs/heads/proposed/clusters/edge1/team/db/packagevariant-3 " + f.commits["p2"],
		"refs/tags/clusters/edge1/app/v1 " + f.commits["a1"],
		"refs/tags/clusters/edge2/app/v1 " + f.commits["x1"],
		"refs/tags/v1.0 " + f.commits["a1"],
	}, "\n")
	if diff := cmp.Diff(want, f.deploy.Refs()); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}

// TestRpkgPullPush is not parallel: it sets SOURCE_DATE_EPOCH.
func TestRpkgPullPush(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newRpkgFleet(t)
	dir := filepath.Join(t.TempDir(), "app")
	if _, stderr, code := f.rpkg(t, "pull", "deploy.app.packagevariant-2", dir); code != 0 {
		t.Fatalf("pull: exit %d: %s", code, stderr)
	}
	if _, stderr, code := f.rpkg(t, "pull", "deploy.app.packagevariant-2", dir); code != 1 || stderr != "kptkit rpkg pull: directory \""+dir+"\" already exists, please delete the directory and retry\n" {
		t.Errorf("pull into an existing folder: exit %d: %s", code, stderr)
	}
	meta, _ := os.ReadFile(filepath.Join(dir, ".KptRevisionMetadata"))
	if !strings.Contains(string(meta), "resourceVersion: "+f.commits["e2"]+"\n") {
		t.Errorf(".KptRevisionMetadata:\n%s", meta)
	}
	if err := os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("edited: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := f.rpkg(t, "push", "deploy.app.packagevariant-2", dir, "--author", "alice")
	if code != 0 || out != "deploy.app.packagevariant-2 pushed\n" {
		t.Fatalf("push: exit %d: %s%s", code, out, stderr)
	}
	head := f.deploy.Git("rev-parse", "refs/heads/drafts/clusters/edge1/app/packagevariant-2")
	if got := f.deploy.Git("log", "-1", "--format=%an <%ae> %at|%cn <%ce> %ct|%P", head); got != "alice <alice> 1767312000|Package Orchestration Service <porch@kpt.dev> 1767312000|"+f.commits["e2"] {
		t.Errorf("pushed commit: %s", got)
	}
	if got := f.deploy.Git("show", head+":clusters/edge1/app/cm.yaml"); got != "edited: true" {
		t.Errorf("pushed cm.yaml: %q", got)
	}
	if got := f.deploy.Git("ls-tree", "-r", "--name-only", head, "clusters/edge1/app"); got != "clusters/edge1/app/Kptfile\nclusters/edge1/app/cm.yaml" {
		t.Errorf("pushed files:\n%s", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "blob.bin"), []byte{0xff, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := f.rpkg(t, "push", "deploy.app.packagevariant-2", dir); code != 1 || stderr != "kptkit rpkg push: file blob.bin is not a valid UTF-8 text file: current porch API doesn't support binary files\n" {
		t.Errorf("a binary file: exit %d: %s", code, stderr)
	}
	if err := os.Remove(filepath.Join(dir, "blob.bin")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = f.rpkg(t, "push", "deploy.app.packagevariant-2", dir)
	if code != 1 || stderr != `kptkit rpkg push: Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev "deploy.app.packagevariant-2": the object has been modified; please apply your changes to the latest version and try again`+"\n" {
		t.Errorf("a second push of the same pull: exit %d: %s", code, stderr)
	}
}

func TestRpkgRepositoryProblems(t *testing.T) {
	t.Parallel()
	f := newRpkgFleet(t)
	missing := filepath.Join(t.TempDir(), "missing")
	_, stderr, code := runKptkit(t, "rpkg", "get", "--cluster", f.cluster, "--repo-map", "https://example.com/deploy.git="+missing, "--repo-map", "https://example.com/catalog.git="+f.catalog.Dir)
	if code != 1 || stderr != "kptkit rpkg get: Repository deploy: cannot open git repository "+missing+": repository does not exist\n" {
		t.Errorf("a missing repository: exit %d: %s", code, stderr)
	}
	f.deploy.Git("update-ref", "-d", "refs/heads/main")
	_, stderr, code = f.rpkg(t, "approve", "deploy.app.packagevariant-2")
	if code != 1 || stderr != "deploy.app.packagevariant-2 failed (Repository deploy: "+f.deploy.Dir+": branch \"main\" doesn't exist)\n" {
		t.Errorf("a repository without its branch: exit %d: %s", code, stderr)
	}
	_, stderr, code = runKptkit(t, "rpkg", "get")
	if code != 2 || !strings.HasPrefix(stderr, "kptkit rpkg get: --cluster is required") {
		t.Errorf("no --cluster: exit %d: %s", code, stderr)
	}
}

// TestRpkgCreateBranch: a Repository with createBranch and a repository
// without its branch gets Porch's initial commit before the first change;
// the approval then builds on it.
func TestRpkgCreateBranch(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	r := gittest.NewPlumb(t)
	draft := r.Commit(map[string]string{"app/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"}, "a draft made elsewhere", "x", "x@example.com")
	r.Ref("refs/heads/drafts/app/ws", draft)
	cluster := filepath.Join(t.TempDir(), "cluster.yaml")
	repo := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: fresh\nspec:\n  git:\n    repo: " + r.Dir + "\n    createBranch: true\n    author: Bot\n"
	if err := os.WriteFile(cluster, []byte(repo), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"propose", "approve"} {
		if out, stderr, code := runKptkit(t, "rpkg", verb, "fresh.app.ws", "--cluster", cluster); code != 0 {
			t.Fatalf("%s: exit %d: %s%s", verb, code, out, stderr)
		}
	}
	log := r.Git("log", "--format=%s|%an <%ae>|%P", "refs/heads/main")
	lines := strings.Split(log, "\n")
	initial := r.Git("rev-parse", "refs/heads/main^1")
	proposed := r.Git("rev-parse", "refs/heads/main^2")
	slices.Sort(lines)
	want := []string{
		"Approving package revision app/1|Bot <>|" + initial + " " + proposed,
		"Initial commit: Creating main branch|Package Orchestration Service <porch@kpt.dev>|",
		"Rendering package|Bot <>|" + draft,
		"a draft made elsewhere|x <x@example.com>|",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if got := r.Git("ls-tree", "-r", "--name-only", "refs/tags/app/v1"); got != "README.md\napp/Kptfile" {
		t.Errorf("published tree:\n%s", got)
	}
}

// TestRpkgCheckedOutBranch: a branch checked out in a work tree is never
// moved; the refusal names it and the work tree, and nothing moves.
func TestRpkgCheckedOutBranch(t *testing.T) {
	t.Parallel()
	f := newRpkgFleet(t)
	clone := filepath.Join(t.TempDir(), "deploy")
	gitIn(t, "", "clone", "-q", f.deploy.Dir, clone)
	gitIn(t, clone, "fetch", "-q", "--update-head-ok", "origin", "+refs/heads/*:refs/heads/*")
	args := []string{"--cluster", f.cluster, "--repo-map", "https://example.com/deploy.git=" + clone, "--repo-map", "https://example.com/catalog.git=" + f.catalog.Dir}
	if _, stderr, code := runKptkit(t, append([]string{"rpkg", "propose", "deploy.app.packagevariant-2"}, args...)...); code != 0 {
		t.Fatalf("propose: %s", stderr)
	}
	before := gitIn(t, clone, "for-each-ref")
	_, stderr, code := runKptkit(t, append([]string{"rpkg", "approve", "deploy.app.packagevariant-2"}, args...)...)
	want := "deploy.app.packagevariant-2 failed (cannot move branch main of https://example.com/deploy.git: it is checked out in the work tree " + clone +
		" (Porch's branches are kept in a bare repository, or a clone with another branch checked out))\n"
	if code != 1 || stderr != want {
		t.Errorf("approve: exit %d\n%s", code, cmp.Diff(want, stderr))
	}
	if after := gitIn(t, clone, "for-each-ref"); after != before {
		t.Errorf("refs moved:\n%s", cmp.Diff(before, after))
	}
}

// gitIn runs git in a folder ("" for the current one).
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
