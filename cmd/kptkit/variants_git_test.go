package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/internal/fleetio"
	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// gitFleet is a catalog repository (app at v1) and deployment
// repositories, each a bare repository with a README on main, named by
// https URLs that --repo-map maps to them; variants and cluster files in a
// folder, the status beside them.
type gitFleet struct {
	t       *testing.T
	catalog *gittest.Plumb
	deploy  map[string]*gittest.Plumb
	dir     string
	commits map[string]string // the catalog's commits, by tag
}

const gitAppKptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"

// newGitFleet makes the catalog (app v1 tagged app/v1) and a deployment
// repository per cluster.
func newGitFleet(t *testing.T, clusters ...string) *gitFleet {
	t.Helper()
	f := &gitFleet{t: t, catalog: gittest.NewPlumb(t), deploy: map[string]*gittest.Plumb{}, dir: t.TempDir(), commits: map[string]string{}}
	f.release("v1", map[string]string{"app/Kptfile": gitAppKptfile, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: prod\n  replicas: \"1\"\n"})
	var cluster []string
	cluster = append(cluster, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: catalog\nspec:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n")
	for _, c := range clusters {
		d := gittest.NewPlumb(t)
		d.Ref("refs/heads/main", d.Commit(map[string]string{"README.md": "cluster " + c + "\n"}, "cluster "+c, "Ops", "ops@example.com"))
		f.deploy[c] = d
		cluster = append(cluster, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: "+c+
			"\nspec:\n  type: git\n  deployment: true\n  git:\n    repo: https://example.com/"+c+".git\n    author: Fleet Bot\n    email: fleet@example.com\n")
	}
	f.write("cluster.yaml", strings.Join(cluster, "---\n"))
	return f
}

// release commits the catalog's files as the whole tree on main (after its
// head) and tags it app/<version>.
func (f *gitFleet) release(version string, files map[string]string) {
	var parents []string
	if head, ok := f.commits["head"]; ok {
		parents = append(parents, head)
	}
	c := f.catalog.Commit(files, "catalog "+version, "Platform", "platform@example.com", parents...)
	f.catalog.Ref("refs/heads/main", c)
	f.catalog.Ref("refs/tags/app/"+version, c)
	f.commits["head"], f.commits[version] = c, c
}

func (f *gitFleet) write(name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// variants writes one PackageVariant per cluster: app at the revision,
// with a package context naming the cluster (and more data: ", k: v").
func (f *gitFleet) variants(revision, data string, clusters ...string) {
	var docs []string
	for _, c := range clusters {
		docs = append(docs, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: "+c+"-app\nspec:\n"+
			"  upstream: {repo: catalog, package: app, revision: "+revision+"}\n  downstream: {repo: "+c+", package: app}\n"+
			"  packageContext:\n    data: {cluster: "+c+data+"}\n")
	}
	f.write("variants.yaml", strings.Join(docs, "---\n"))
}

// render runs variants render --git on the fleet with more flags.
func (f *gitFleet) render(args ...string) (string, string, int) {
	f.t.Helper()
	return runKptkit(f.t, f.args(args...)...)
}

// args are kptkit's arguments for variants render --git on the fleet,
// with more flags.
func (f *gitFleet) args(more ...string) []string {
	full := []string{"variants", "render", "--git", "--variants", filepath.Join(f.dir, "variants.yaml"), "--cluster", filepath.Join(f.dir, "cluster.yaml"),
		"--status", filepath.Join(f.dir, "status.yaml"), "--repo-map", "https://example.com/catalog.git=" + f.catalog.Dir}
	for c, d := range f.deploy {
		full = append(full, "--repo-map", "https://example.com/"+c+".git="+d.Dir)
	}
	return append(full, more...)
}

// mustRender is render that must succeed.
func (f *gitFleet) mustRender(args ...string) string {
	f.t.Helper()
	out, stderr, code := f.render(args...)
	if code != 0 {
		f.t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	return out
}

// dump is a deployment repository as a golden file shows it: its refs,
// then each branch's and tag's commits (oldest first: hash, parents,
// author, committer, time, message) and the files of its head.
func dump(d *gittest.Plumb) string {
	var b strings.Builder
	refs := d.Git("for-each-ref", "--format=%(refname) %(objectname:short=7)")
	fmt.Fprintf(&b, "== refs\n%s\n", refs)
	for line := range strings.Lines(refs) {
		ref, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		fmt.Fprintf(&b, "== log %s\n%s\n", ref, d.Git("log", "--reverse", "--format=%h [%p] author %an <%ae> committer %cn <%ce> %ct%n%B", ref))
		fmt.Fprintf(&b, "== files %s\n", ref)
		for f := range strings.Lines(d.Git("ls-tree", "-r", "--name-only", ref)) {
			f = strings.TrimSpace(f)
			fmt.Fprintf(&b, "--- %s (%s)\n%s\n", f, strings.Fields(d.Git("ls-tree", ref, f))[0], d.Git("show", ref+":"+f))
		}
	}
	return b.String()
}

// goldenGit compares a repository's dump with testdata/variants-git/<name>.
func goldenGit(t *testing.T, name string, d *gittest.Plumb) {
	t.Helper()
	golden(t, filepath.Join("..", "variants-git", name), dump(d))
}

// TestVariantsGitClone: a variant with no revision gets a clone draft
// packagevariant-1 (a clone task commit, then a "Rendering package" commit,
// the branch's head their first parent, Porch's messages and annotations,
// the Repository's author, SOURCE_DATE_EPOCH's time); a run that changes
// nothing commits nothing and moves no ref.
func TestVariantsGitClone(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01")
	f.variants("v1", "", "edge01")
	out := f.mustRender()
	if want := "default/edge01-app: created edge01.app.packagevariant-1 from catalog/app@v1\n"; !strings.HasPrefix(out, want) {
		t.Errorf("stdout:\n%s\nwant it to start with %q", out, want)
	}
	goldenGit(t, "clone.txt", f.deploy["edge01"])
	f.deploy["edge01"].Git("fsck", "--strict", "--no-dangling") // the change's pack is whole, as git reads it
	refs := f.deploy["edge01"].Refs()
	out = f.mustRender()
	if want := "default/edge01-app: unchanged edge01.app.packagevariant-1 from catalog/app@v1 (up to date)\n"; !strings.HasPrefix(out, want) {
		t.Errorf("second run:\n%s\nwant it to start with %q", out, want)
	}
	if got := f.deploy["edge01"].Refs(); got != refs {
		t.Errorf("a run that changed nothing moved refs:\n%s\nwas:\n%s", got, refs)
	}
}

// rpkg runs kptkit rpkg <args> on the fleet's repositories.
func (f *gitFleet) rpkg(args ...string) string {
	f.t.Helper()
	full := append([]string{"rpkg"}, args...)
	full = append(full, "--cluster", filepath.Join(f.dir, "cluster.yaml"), "--repo-map", "https://example.com/catalog.git="+f.catalog.Dir)
	for c, d := range f.deploy {
		full = append(full, "--repo-map", "https://example.com/"+c+".git="+d.Dir)
	}
	out, stderr, code := runKptkit(f.t, full...)
	if code != 0 {
		f.t.Fatalf("kptkit %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return out
}

// edit pulls a draft, replaces a string in one of its files and pushes it
// back, as a reviewer does.
func (f *gitFleet) edit(name, file, old, new string) {
	f.t.Helper()
	dir := filepath.Join(f.t.TempDir(), "pulled")
	f.rpkg("pull", name, dir)
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		f.t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		f.t.Fatalf("%s has no %q:\n%s", file, old, b)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.rpkg("push", name, dir)
}

// TestVariantsGitLifecycle: the fleet story on one cluster. A clone draft;
// a reviewer's edit on it is kept (the next run re-renders it, one more
// render commit) and the variant's own change goes into the same draft;
// approved with rpkg, it is Published (v1); the catalog's v2 makes an
// upgrade draft packagevariant-2 from it that keeps the edit.
func TestVariantsGitLifecycle(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01")
	d := f.deploy["edge01"]
	f.variants("v1", "", "edge01")
	f.mustRender()
	f.edit("edge01.app.packagevariant-1", "cm.yaml", `replicas: "1"`, `replicas: "3"`)
	f.variants("v1", ", region: west", "edge01")
	if out := f.mustRender(); !strings.HasPrefix(out, "default/edge01-app: updated edge01.app.packagevariant-1 from catalog/app@v1\n") {
		t.Errorf("the variant's change over the reviewed draft:\n%s", out)
	}
	goldenGit(t, "lifecycle-draft.txt", d)
	f.rpkg("propose", "edge01.app.packagevariant-1")
	if out, _, code := f.render(); code != 0 || !strings.HasPrefix(out, "default/edge01-app: waiting edge01.app.packagevariant-1") {
		t.Errorf("a proposal: exit %d\n%s", code, out)
	}
	f.rpkg("approve", "edge01.app.packagevariant-1")
	if out := f.mustRender(); !strings.HasPrefix(out, "default/edge01-app: unchanged edge01.app.packagevariant-1 from catalog/app@v1 (up to date)\n") {
		t.Errorf("published, nothing changed:\n%s", out)
	}
	f.release("v2", map[string]string{"app/Kptfile": gitAppKptfile, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: prod\n  replicas: \"1\"\n  tier: gold\n"})
	f.variants("v2", ", region: west", "edge01")
	if out := f.mustRender(); !strings.HasPrefix(out, "default/edge01-app: created edge01.app.packagevariant-2 from catalog/app@v2\n") {
		t.Errorf("the upgrade:\n%s", out)
	}
	goldenGit(t, "lifecycle-upgrade.txt", d)
}

// TestVariantsGitDraftUpdates: the newest owned draft is updated in place
// — by the upstream's move (v1 to v2: one render commit, no upgrade task,
// the lock Porch's way at v2) — and the status records the last commit
// kptkit made there; a draft whose history was rewritten under kptkit (a
// force push) fails its variant, saying so, and is left as it is.
func TestVariantsGitDraftUpdates(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01")
	d := f.deploy["edge01"]
	f.variants("v1", "", "edge01")
	f.mustRender()
	f.release("v2", map[string]string{"app/Kptfile": gitAppKptfile, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: prod\n  replicas: \"2\"\n"})
	f.variants("v2", "", "edge01")
	if out := f.mustRender(); !strings.HasPrefix(out, "default/edge01-app: updated edge01.app.packagevariant-1 from catalog/app@v2\n") {
		t.Errorf("upstream moved under the draft:\n%s", out)
	}
	goldenGit(t, "draft-upstream-move.txt", d)
	head := d.Git("rev-parse", "refs/heads/drafts/app/packagevariant-1")
	status, err := os.ReadFile(filepath.Join(f.dir, "status.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "kptkit.dev/commit: "+head) || !strings.Contains(string(status), "- name: edge01.app.packagevariant-1") {
		t.Errorf("the status does not record the draft and %s:\n%s", head, status)
	}
	// A force push: the draft rewritten to a commit that does not descend
	// from kptkit's.
	main := d.Git("rev-parse", "refs/heads/main")
	rewritten := d.Commit(map[string]string{"README.md": "x\n", "app/Kptfile": gitAppKptfile}, "rewritten", "Someone", "someone@example.com", main)
	d.Ref("refs/heads/drafts/app/packagevariant-1", rewritten)
	f.variants("v2", ", region: west", "edge01")
	out, stderr, code := f.render()
	if code != 1 || !strings.Contains(stderr, "the history of the PackageRevision edge01.app.packagevariant-1 was rewritten: its head "+rewritten[:12]+" does not descend from "+head[:12]) {
		t.Errorf("a force push: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := d.Git("rev-parse", "refs/heads/drafts/app/packagevariant-1"); got != rewritten {
		t.Errorf("the rewritten draft moved to %s", got)
	}
	status2, _ := os.ReadFile(filepath.Join(f.dir, "status.yaml"))
	if !strings.Contains(string(status2), "kptkit.dev/commit: "+head) {
		t.Errorf("a failed variant lost its record:\n%s", status2)
	}
}

// TestVariantsGitAdoption: a package published on the deployment branch
// by someone else (tag app/v1, no owner) is refused in folder mode's words
// without adoptionPolicy adoptExisting; with it, it is adopted: an upgrade
// draft from it (its lock names v1, the variant asks for v2) whose
// Kptfile names the owner.
func TestVariantsGitAdoption(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01")
	d := f.deploy["edge01"]
	main := d.Git("rev-parse", "refs/heads/main")
	theirs := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: app/v1\n" +
		"upstreamLock:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: app/v1\n    commit: " + f.commits["v1"] + "\n"
	published := d.Commit(map[string]string{"README.md": "cluster edge01\n", "app/Kptfile": theirs, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: prod\n  replicas: \"5\"\n"},
		"Approving package revision app/1\n\nkpt:{\"package\":\"app\",\"workspaceName\":\"v1\",\"revision\":\"1\"}\n", "Someone", "someone@example.com", main)
	d.Ref("refs/heads/main", published)
	d.Ref("refs/tags/app/v1", published)
	f.release("v2", map[string]string{"app/Kptfile": gitAppKptfile, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: prod\n  replicas: \"1\"\n  tier: gold\n"})
	f.variants("v2", "", "edge01")
	refs := d.Refs()
	if _, stderr, code := f.render(); code != 1 || !strings.Contains(stderr, "the downstream package edge01/app exists and no PackageVariant owns it: set spec.adoptionPolicy to adoptExisting to adopt it") {
		t.Errorf("without adoptExisting: exit %d\n%s", code, stderr)
	}
	if got := d.Refs(); got != refs {
		t.Errorf("a refused adoption moved refs:\n%s", got)
	}
	f.write("variants.yaml", strings.Replace(readFile(t, filepath.Join(f.dir, "variants.yaml")), "spec:\n", "spec:\n  adoptionPolicy: adoptExisting\n", 1))
	if out := f.mustRender(); !strings.HasPrefix(out, "default/edge01-app: created edge01.app.packagevariant-1 from catalog/app@v2\n") {
		t.Errorf("adopted:\n%s", out)
	}
	goldenGit(t, "adoption.txt", d)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestVariantsGitPrune: with --prune-all, a variant no longer in the run
// has its owned draft deleted (edge01) and its owned published revision
// proposed for deletion (edge02: deletionProposed/app/v1), as Porch's
// deletionPolicy delete; a variant whose deletionPolicy is orphan is
// released and its repository left as it is (edge03).
func TestVariantsGitPrune(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01", "edge02", "edge03")
	f.variants("v1", "", "edge02", "edge03")
	f.write("variants.yaml", strings.Replace(readFile(t, filepath.Join(f.dir, "variants.yaml")), "name: edge03-app\nspec:\n", "name: edge03-app\nspec:\n  deletionPolicy: orphan\n", 1))
	f.mustRender("--lifecycle", "published")
	goldenGit(t, "published.txt", f.deploy["edge02"])
	f.variants("v1", "", "edge01")
	if out := f.mustRender(); strings.Contains(out, "deleted edge") || strings.Contains(out, "released edge") {
		t.Errorf("--prune removed what variants absent from the run own:\n%s", out)
	}
	edge03 := f.deploy["edge03"].Refs()
	f.write("variants.yaml", "")
	out := f.mustRender("--prune-all")
	want := "deleted edge01.app.packagevariant-1 (default/edge01-app no longer wants it)\n" +
		"proposed edge02.app.packagevariant-1 for deletion (default/edge02-app no longer wants it)\n" +
		"released edge03.app.packagevariant-1 (default/edge03-app is gone; deletionPolicy orphan)\n"
	if !strings.Contains(out, want) {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if got := f.deploy["edge01"].Git("for-each-ref", "refs/heads/drafts"); got != "" {
		t.Errorf("the draft is still there: %s", got)
	}
	goldenGit(t, "prune-published.txt", f.deploy["edge02"])
	if got := f.deploy["edge03"].Refs(); got != edge03 {
		t.Errorf("a release changed the repository:\n%s", got)
	}
}

// TestVariantsGitPruneReferenced: a draft the run would prune that another
// package revision of the namespace names as its upstream (its clone task)
// is not deleted, as Porch refuses it, in Porch's words; the run exits 1.
// Once that revision is gone, the next prune deletes the draft.
func TestVariantsGitPruneReferenced(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01", "edge02")
	f.variants("v1", "", "edge01")
	f.mustRender()
	d := f.deploy["edge02"]
	msg := "Creating new revision by cloning\n\n\nkpt:{\"package\":\"other\",\"workspaceName\":\"ws1\",\"revision\":\"0\"," +
		"\"task\":{\"type\":\"clone\",\"clone\":{\"upstreamRef\":{\"upstreamRef\":{\"name\":\"edge01.app.packagevariant-1\"}}}}}\n"
	clone := d.Commit(map[string]string{"README.md": "cluster edge02\n", "other/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: other\n"},
		msg, "Ops", "ops@example.com", d.Git("rev-parse", "refs/heads/main"))
	d.Ref("refs/heads/drafts/other/ws1", clone)
	refs := f.deploy["edge01"].Refs()
	f.write("variants.yaml", "")
	out, stderr, code := f.render("--prune-all")
	want := "cannot delete package revision, it is referenced as upstream by: edge02.other.ws1"
	if code != 1 || !strings.Contains(out+stderr, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s\n%s", code, want, out, stderr)
	}
	if got := f.deploy["edge01"].Refs(); got != refs {
		t.Errorf("the referenced draft moved:\n%s\nwas:\n%s", got, refs)
	}
	d.Git("update-ref", "-d", "refs/heads/drafts/other/ws1")
	if out := f.mustRender("--prune-all"); !strings.Contains(out, "deleted edge01.app.packagevariant-1 (default/edge01-app no longer wants it)\n") {
		t.Errorf("once no longer referenced:\n%s", out)
	}
}

// TestVariantsGitCheckAndDryRun: --check and --dry-run write no object and
// move no ref; --check exits 1 exactly when the run would commit or move a
// ref (a pending draft that would not change passes); --dry-run prints each
// ref change and the diff of the revision's package against its base.
func TestVariantsGitCheckAndDryRun(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01")
	d := f.deploy["edge01"]
	f.variants("v1", "", "edge01")
	objects := d.Git("count-objects", "-v")
	refs := d.Refs()
	if _, stderr, code := f.render("--check"); code != 1 || !strings.Contains(stderr, "--check: the repositories are not what the variants render to") {
		t.Errorf("--check before the first run: exit %d: %s", code, stderr)
	}
	out, _, code := f.render("--dry-run")
	if code != 0 || !strings.Contains(out, "would create refs/heads/drafts/app/packagevariant-1 (edge01.app.packagevariant-1)\n") ||
		!strings.Contains(out, "--- /dev/null\n+++ b/edge01.app.packagevariant-1/cm.yaml\n") {
		t.Errorf("--dry-run: exit %d\n%s", code, out)
	}
	if got := d.Git("count-objects", "-v"); got != objects || d.Refs() != refs {
		t.Errorf("--check or --dry-run wrote to the repository:\n%s\n%s", got, d.Refs())
	}
	if _, err := os.Stat(filepath.Join(f.dir, "status.yaml")); err == nil {
		t.Errorf("--check or --dry-run wrote the status")
	}
	f.mustRender()
	if _, stderr, code := f.render("--check"); code != 0 {
		t.Errorf("--check over a pending draft that would not change: exit %d: %s", code, stderr)
	}
	f.variants("v1", ", region: west", "edge01")
	out, _, code = f.render("--dry-run")
	if code != 0 || !strings.Contains(out, "would move refs/heads/drafts/app/packagevariant-1 (edge01.app.packagevariant-1)\n") || !strings.Contains(out, "+  region: west\n") {
		t.Errorf("--dry-run of an update: exit %d\n%s", code, out)
	}
	if _, _, code := f.render("--check"); code != 1 {
		t.Errorf("--check of an update: exit %d", code)
	}
}

// TestVariantsGitProposed: --lifecycle proposed leaves the revision
// Proposed (one more render commit, proposed/… created); the next run waits
// for its approval (Ready=False), changing nothing.
func TestVariantsGitProposed(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01")
	d := f.deploy["edge01"]
	f.variants("v1", "", "edge01")
	f.mustRender("--lifecycle", "proposed")
	if got := d.Git("for-each-ref", "--format=%(refname)", "refs/heads/"); got != "refs/heads/main\nrefs/heads/proposed/app/packagevariant-1" {
		t.Errorf("refs: %s", got)
	}
	refs := d.Refs()
	f.variants("v1", ", region: west", "edge01")
	out := f.mustRender()
	if !strings.HasPrefix(out, "default/edge01-app: waiting edge01.app.packagevariant-1 from catalog/app@v1\n") || d.Refs() != refs {
		t.Errorf("a proposal:\n%s\n%s", out, d.Refs())
	}
	status := readFile(t, filepath.Join(f.dir, "status.yaml"))
	if !strings.Contains(status, "reason: WaitingForApproval\n") || !strings.Contains(status, "message: 'the PackageRevision edge01.app.packagevariant-1 is proposed: waiting for approval'") {
		t.Errorf("status:\n%s", status)
	}
}

// TestVariantsGitRepositoryProblems: a downstream repository that is
// missing, not git, or lacks its branch fails that Repository's variants
// only; a Repository with createBranch gets its branch as Porch makes it; a
// branch checked out in a work tree is never moved; the flags --git
// refuses.
func TestVariantsGitRepositoryProblems(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01", "edge02", "edge03", "edge04")
	f.deploy["edge02"].Git("update-ref", "-d", "refs/heads/main")
	f.deploy["edge03"].Git("update-ref", "-d", "refs/heads/main")
	f.write("cluster.yaml", strings.Replace(readFile(t, filepath.Join(f.dir, "cluster.yaml")), "repo: https://example.com/edge03.git\n", "repo: https://example.com/edge03.git\n    createBranch: true\n", 1))
	notGit := t.TempDir()
	f.deploy["edge04"].Dir = notGit
	f.variants("v1", "", "edge01", "edge02", "edge03", "edge04")
	out, stderr, code := f.render()
	if code != 1 || !strings.Contains(out, "default/edge01-app: created edge01.app.packagevariant-1") || !strings.Contains(out, "default/edge03-app: created edge03.app.packagevariant-1") ||
		!strings.Contains(stderr, `failed: default/edge02-app (`) || !strings.Contains(stderr, `Repository edge02: `+f.deploy["edge02"].Dir+`: branch "main" doesn't exist`) ||
		!strings.Contains(stderr, "Repository edge04: cannot open git repository "+notGit) {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := f.deploy["edge03"].Git("log", "--format=%s %an", "main"); got != "Initial commit: Creating main branch Package Orchestration Service" {
		t.Errorf("createBranch: %s", got)
	}
	// A work tree with main checked out: main is never moved.
	wt := filepath.Join(t.TempDir(), "wt")
	f.deploy["edge01"].Git("worktree", "add", wt, "main")
	f.variants("v1", ", region: west", "edge01")
	_, stderr, code = f.render("--lifecycle", "published")
	if code != 1 || !strings.Contains(stderr, "cannot move branch main of https://example.com/edge01.git: it is checked out in the work tree") {
		t.Errorf("a checked-out branch: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{{"--out", t.TempDir()}, {"--upstream", t.TempDir()}, {"--lifecycle", "approved"}, {"--push", "--check"}} {
		if _, stderr, code := f.render(args...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	full := []string{"variants", "render", "--git", "--variants", filepath.Join(f.dir, "variants.yaml")}
	if _, stderr, code := runKptkit(t, full...); code != 2 || !strings.Contains(stderr, "--status is required with --git") {
		t.Errorf("no --status: exit %d: %s", code, stderr)
	}
}

// TestVariantsGitUnreadableRevision: a published revision whose Kptfile
// cannot be read fails the variants of its own package only: edge01's
// other package does not stop its app variant (nor is it pruned), and
// edge02's app variant fails naming the revision. A draft a variant made,
// its Kptfile since made unreadable, is not pruned when the variant goes:
// whose it is cannot be read.
func TestVariantsGitUnreadableRevision(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01", "edge02", "edge03")
	broken := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: [\n"
	f.variants("v1", "", "edge03")
	f.mustRender()
	edge03 := f.deploy["edge03"]
	draft := "refs/heads/drafts/app/packagevariant-1"
	head := edge03.Git("rev-parse", draft)
	edge03.Ref(draft, edge03.Commit(map[string]string{"README.md": "cluster edge03\n", "app/Kptfile": broken}, "someone's edit", "Ops", "ops@example.com", head))
	refs := edge03.Refs()
	for c, pkg := range map[string]string{"edge01": "other", "edge02": "app"} {
		d := f.deploy[c]
		head := d.Git("rev-parse", "refs/heads/main")
		commit := d.Commit(map[string]string{"README.md": "cluster " + c + "\n", pkg + "/Kptfile": broken}, "someone's package", "Ops", "ops@example.com", head)
		d.Ref("refs/heads/main", commit)
		d.Ref("refs/tags/"+pkg+"/v1", commit)
	}
	f.variants("v1", "", "edge01", "edge02")
	out, stderr, code := f.render("--prune-all")
	if code != 1 || !strings.Contains(out, "default/edge01-app: created edge01.app.packagevariant-1") ||
		!strings.Contains(stderr, "failed: default/edge02-app (") || !strings.Contains(stderr, "the PackageRevision edge02.app.v1 has a Kptfile kptkit cannot read") ||
		strings.Contains(stderr, "edge01") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := f.deploy["edge01"].Git("for-each-ref", "--format=%(refname)", "refs/tags"); got != "refs/tags/other/v1" {
		t.Errorf("edge01's tags: %q, want its other package's kept", got)
	}
	if strings.Contains(out, "edge03") || edge03.Refs() != refs {
		t.Errorf("edge03's unreadable draft was pruned:\n%s\n%s", out, edge03.Refs())
	}
}

// TestVariantsGitOneWriter: a run holds each repository it writes for the
// whole run — another run (here the lock taken as kptkit takes it, flock on
// the git folder, which the kernel shares out between processes alike)
// fails that repository's variants at once, naming the holder, and the
// others go on; a writer that bypasses the lock and moves a draft between
// kptkit's read and its write fails that variant only (git's
// compare-and-swap), its ref left where that writer put it.
func TestVariantsGitOneWriter(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01", "edge02")
	f.variants("v1", "", "edge01", "edge02")
	lock, err := pkgfs.LockDir(f.deploy["edge01"].Dir, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := f.render()
	if code != 1 || !strings.Contains(stderr, "Repository edge01: "+f.deploy["edge01"].Dir+" is in use: kptkit pid ") || !strings.Contains(out, "default/edge02-app: created edge02.app.packagevariant-1") {
		t.Errorf("another run holds edge01: exit %d\n%s\n%s", code, out, stderr)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}
	f.mustRender()

	// The bypassing writer moves edge01's draft after kptkit read it.
	f.variants("v1", ", region: west", "edge01", "edge02")
	in, err := fleetio.ReadInput(filepath.Join(f.dir, "variants.yaml"), filepath.Join(f.dir, "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	maps := map[string]string{"https://example.com/catalog.git": f.catalog.Dir}
	for c, d := range f.deploy {
		maps["https://example.com/"+c+".git"] = d.Dir
	}
	rv := &fleetio.Revisions{RepoMap: maps}
	defer rv.Close()
	d := f.deploy["edge01"]
	other := d.Commit(map[string]string{"app/Kptfile": gitAppKptfile}, "someone else", "Someone", "someone@example.com", d.Git("rev-parse", "refs/heads/drafts/app/packagevariant-1"))
	bypass := &bypassing{Revisions: rv, before: func(repo string) {
		if repo == "edge01" {
			d.Ref("refs/heads/drafts/app/packagevariant-1", other)
		}
	}}
	report, err := fleet.Run(in, fleet.Options{Source: &upstream.Source{RepoMap: maps}, Revisions: bypass, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range report.Variants {
		got = append(got, v.String())
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "failed edge01.app.packagevariant-1 from catalog/app@v1: cannot write the PackageRevision edge01.app.packagevariant-1: cannot update the refs of https://example.com/edge01.git: ") ||
		!strings.Contains(got[0], "but expected") || got[1] != "updated edge02.app.packagevariant-1 from catalog/app@v1" {
		t.Errorf("outcomes:\n%s", strings.Join(got, "\n"))
	}
	if head := d.Git("rev-parse", "refs/heads/drafts/app/packagevariant-1"); head != other {
		t.Errorf("the draft moved from the other writer's %s to %s", other, head)
	}
}

// bypassing is a store of revisions in front of which another writer
// changes a repository just before each change is applied.
type bypassing struct {
	*fleetio.Revisions
	before func(repo string)
}

func (b *bypassing) Apply(repo pkgrev.Repository, w fleet.Write) (string, error) {
	b.before(repo.Name)
	return b.Revisions.Apply(repo, w)
}

// TestVariantsGitPush: --push pushes exactly the refs the run changed in
// each repository to its spec.git.repo (here a local bare remote, the
// repository written a clone of it mapped by --repo-map) with git push
// --atomic, never by force: a push the remote rejects (its draft moved by
// someone else) fails that repository's variants, the others go on; a
// pruned draft is deleted on the remote too.
func TestVariantsGitPush(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01", "edge02")
	remotes := map[string]string{}
	cluster := readFile(t, filepath.Join(f.dir, "cluster.yaml"))
	var maps []string
	for _, c := range []string{"edge01", "edge02"} {
		remotes[c] = filepath.Join(t.TempDir(), c+".git")
		f.deploy[c].Git("clone", "--quiet", "--bare", f.deploy[c].Dir, remotes[c])
		cluster = strings.Replace(cluster, "https://example.com/"+c+".git", "file://"+remotes[c], 1)
		maps = append(maps, "--repo-map", "file://"+remotes[c]+"="+f.deploy[c].Dir)
	}
	f.write("cluster.yaml", cluster)
	remoteRefs := func(c string) string {
		return f.deploy[c].Git("ls-remote", remotes[c])
	}
	f.variants("v1", "", "edge01", "edge02")
	f.mustRender(append(maps, "--push")...)
	for _, c := range []string{"edge01", "edge02"} {
		local := f.deploy[c].Git("rev-parse", "refs/heads/drafts/app/packagevariant-1")
		if got := remoteRefs(c); !strings.Contains(got, local+"\trefs/heads/drafts/app/packagevariant-1") {
			t.Errorf("%s's remote: %s", c, got)
		}
	}
	// Someone moves edge01's draft on the remote: kptkit's update of its
	// clone is no fast-forward there.
	r := f.deploy["edge01"]
	other := r.Commit(map[string]string{"app/Kptfile": gitAppKptfile}, "someone else", "Someone", "someone@example.com", r.Git("rev-parse", "refs/heads/drafts/app/packagevariant-1"))
	r.Git("push", "--quiet", remotes["edge01"], other+":refs/heads/drafts/app/packagevariant-1")
	f.variants("v1", ", region: west", "edge01", "edge02")
	out, stderr, code := f.render(append(maps, "--push")...)
	if code != 1 || !strings.Contains(stderr, "failed: default/edge01-app") || !strings.Contains(stderr, "cannot push to file://"+remotes["edge01"]) ||
		!strings.Contains(out, "default/edge02-app: updated edge02.app.packagevariant-1") || strings.Contains(stderr, "edge02-app") {
		t.Errorf("a rejected push: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := remoteRefs("edge01"); !strings.Contains(got, other+"\trefs/heads/drafts/app/packagevariant-1") {
		t.Errorf("the rejected push moved edge01's remote: %s", got)
	}
	local := f.deploy["edge02"].Git("rev-parse", "refs/heads/drafts/app/packagevariant-1")
	if got := remoteRefs("edge02"); !strings.Contains(got, local+"\trefs/heads/drafts/app/packagevariant-1") {
		t.Errorf("edge02's remote: %s", got)
	}
	f.variants("v1", ", region: west", "edge01")
	f.mustRender(append(maps, "--push", "--prune-all")...)
	if got := remoteRefs("edge02"); strings.Contains(got, "drafts/") {
		t.Errorf("edge02's pruned draft is still on its remote: %s", got)
	}
}

// TestVariantsGitTwoProcesses: two kptkit processes render the same fleet
// into the same repositories at once with --wait: each holds a repository
// for its whole run, so the second sees what the first wrote — both
// succeed, and every repository holds one draft, packagevariant-1.
func TestVariantsGitTwoProcesses(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01", "edge02", "edge03")
	f.variants("v1", "", "edge01", "edge02", "edge03")
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := range 2 {
		args := []string{"variants", "render", "--git", "--wait", "2m", "--variants", filepath.Join(f.dir, "variants.yaml"), "--cluster", filepath.Join(f.dir, "cluster.yaml"),
			"--status", filepath.Join(f.dir, fmt.Sprintf("status%d.yaml", i)), "--repo-map", "https://example.com/catalog.git=" + f.catalog.Dir}
		for c, d := range f.deploy {
			args = append(args, "--repo-map", "https://example.com/"+c+".git="+d.Dir)
		}
		cmd := helper(nil, args...)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	for c, d := range f.deploy {
		if got := d.Git("for-each-ref", "--format=%(refname)", "refs/heads/drafts"); got != "refs/heads/drafts/app/packagevariant-1" {
			t.Errorf("%s: %s", c, got)
		}
	}
}

// TestVariantsGitMove: a variant whose downstream package moves (app to
// web) gets a clone draft of the new package, and its draft of the old one
// is deleted (--prune, on by default: the variant is in the run).
func TestVariantsGitMove(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	f := newGitFleet(t, "edge01")
	f.variants("v1", "", "edge01")
	f.mustRender()
	f.write("variants.yaml", strings.Replace(readFile(t, filepath.Join(f.dir, "variants.yaml")), "package: app}", "package: web}", 1))
	out := f.mustRender()
	if !strings.Contains(out, "default/edge01-app: created edge01.web.packagevariant-1 from catalog/app@v1\n") ||
		!strings.Contains(out, "deleted edge01.app.packagevariant-1 (default/edge01-app no longer wants it)\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if got := f.deploy["edge01"].Git("for-each-ref", "--format=%(refname)", "refs/heads/drafts"); got != "refs/heads/drafts/web/packagevariant-1" {
		t.Errorf("drafts: %s", got)
	}
}
