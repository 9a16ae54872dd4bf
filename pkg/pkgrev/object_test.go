package pkgrev

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// history is a fake repository history: commits newest first.
type history []Commit

func (h history) Packages(string, string) ([]Package, error) { return nil, errors.New("not here") }
func (h history) Package(string, string) (string, bool, error) {
	return "", false, errors.New("not here")
}
func (h history) Commit(hash string) (Commit, error) {
	for _, c := range h {
		if c.Hash == hash {
			return c, nil
		}
	}
	return Commit{}, errors.New("no commit " + hash)
}
func (h history) Log(from string, visit func(Commit) bool) error {
	seen := false
	for _, c := range h {
		seen = seen || c.Hash == from
		if seen && !visit(c) {
			return nil
		}
	}
	return nil
}

func message(t *testing.T, first, pkg, ws string, task *porch.Task) string {
	t.Helper()
	m, err := Annotate(first, Annotation{Package: pkg, WorkspaceName: ws, Revision: "0", Task: task})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTasksAndPublisher(t *testing.T) {
	t.Parallel()
	const app = "clusters/a/app"
	alice := Signature{Name: "alice", Email: "alice@example.com", When: at}
	h := history{
		{Hash: hash("m"), Message: "unrelated"},
		{Hash: hash("a"), Message: message(t, "Approving", app, "ws-2", nil), Author: alice},
		{Hash: hash("r"), Message: message(t, "Rendering package", app, "ws-2", RenderTask())},
		{Hash: hash("u"), Message: message(t, "Upgrading revision", app, "ws-2", UpgradeTask("c.app.v1", "c.app.v2", "deploy.app.ws-1"))},
		{Hash: hash("e"), Message: message(t, "edit", app, "ws-2", EditTask("deploy.app.ws-1"))},
		{Hash: hash("c"), Message: message(t, "clone of another workspace", app, "ws-1", CloneTask("c.app.v1"))},
		{Hash: hash("o"), Message: "kpt:{\"package\":\"" + app + "\",\"revision\":\"ws-old\",\"task\":{\"type\":\"init\"}}"},
	}
	for _, tc := range []struct {
		ws   string
		want []porch.Task
	}{
		{"ws-2", []porch.Task{*EditTask("deploy.app.ws-1")}},
		{"ws-1", []porch.Task{*CloneTask("c.app.v1")}},
		{"ws-old", []porch.Task{{Type: "init"}}}, // annotated before workspaces: the revision names it
		{"ws-none", nil},
	} {
		got, err := Tasks(h, &Revision{Path: app, Workspace: tc.ws, Commit: hash("m")})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("tasks of %s (-want +got):\n%s", tc.ws, diff)
		}
	}
	s := &Snapshot{Repo: repo}
	head := &Revision{Path: app, Ref: "refs/heads/main", Commit: hash("m")}
	if got, err := PublishedBy(h, s, head); err != nil || got == nil || *got != alice {
		t.Errorf("publisher of the branch head: %+v, %v", got, err)
	}
	tag := &Revision{Path: app, Ref: "refs/tags/" + app + "/v2", Commit: hash("a")}
	if got, err := PublishedBy(h, s, tag); err != nil || *got != alice {
		t.Errorf("publisher of a tag: %+v, %v", got, err)
	}
	tasks := map[string][]porch.Task{
		"edge.app.packagevariant-1": {*CloneTask("catalog.app.v1")},
		"edge.app.packagevariant-2": {*UpgradeTask("catalog.app.v1", "catalog.app.v2", "edge.app.packagevariant-1")},
		"edge.db.packagevariant-1":  {*EditTask("catalog.app.v3")},
	}
	for name, want := range map[string]string{"catalog.app.v1": "edge.app.packagevariant-1", "catalog.app.v2": "edge.app.packagevariant-2", "catalog.app.v3": ""} {
		if got := ReferencedBy(name, tasks); got != want {
			t.Errorf("ReferencedBy(%s) = %q, want %q", name, got, want)
		}
	}
	tasks["a.app.packagevariant-1"] = []porch.Task{*CloneTask("catalog.app.v2")}
	tasks["z.app.self"] = []porch.Task{*CloneTask("z.app.self")}
	want := map[string]string{"catalog.app.v1": "edge.app.packagevariant-1", "catalog.app.v2": "a.app.packagevariant-1"}
	if diff := cmp.Diff(want, Referrers(tasks)); diff != "" {
		t.Errorf("Referrers (-want +got):\n%s", diff)
	}
}

func TestObject(t *testing.T) {
	t.Parallel()
	kf, err := ReadKptfile([]byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n  labels:\n    team: a\nupstream:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: app/v2\nupstreamLock:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: app/v2\n    commit: abc\n" + ready[strings.Index(ready, "info:"):]))
	if err != nil {
		t.Fatal(err)
	}
	rev := &Revision{Name: "deploy.app.ws-1", Package: "app", Path: "clusters/a/app", Workspace: "ws-1", Revision: 1, Lifecycle: "Published", Latest: true, Ref: "refs/tags/clusters/a/app/v1", Commit: hash("1")}
	o := Object(repo, rev, Details{Kptfile: kf, Tasks: []porch.Task{*CloneTask("catalog.app.v2")}, Published: &Signature{Email: "alice", When: at}})
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"PackageRevision","apiVersion":"porch.kpt.dev/v1alpha1","metadata":{"name":"deploy.app.ws-1","namespace":"default","uid":"` + UID("default", "deploy.app.ws-1") + `","resourceVersion":"` + hash("1") + `","labels":{"kpt.dev/latest-revision":"true"}},` +
		`"spec":{"packageName":"app","repository":"deploy","workspaceName":"ws-1","revision":1,"lifecycle":"Published","tasks":[{"type":"clone","clone":{"upstreamRef":{"upstreamRef":{"name":"catalog.app.v2"}}}}],"readinessGates":[{"conditionType":"Ready"}],"packageMetadata":{"labels":{"team":"a"}}},` +
		`"status":{"upstreamLock":{"type":"git","git":{"repo":"https://example.com/catalog.git","directory":"app","ref":"app/v2","commit":"abc"}},"selfLock":{"type":"git","git":{"repo":"https://example.com/deploy","directory":"app","ref":"clusters/a/app/v1","commit":"` + hash("1") + `"}},"publishedBy":"alice","publishTimestamp":"2026-01-02T00:00:00Z","conditions":[{"type":"Ready","status":"True"}]}}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
	draft := Object(repo, &Revision{Name: "deploy.app.d", Package: "app", Workspace: "d", Lifecycle: "Draft", Ref: "refs/heads/drafts/clusters/a/app/d"}, Details{})
	b, _ = json.Marshal(draft.Status)
	if got := string(b); got != `{"upstreamLock":{},"selfLock":{"type":"git","git":{"repo":"https://example.com/deploy","directory":"app","ref":"drafts/clusters/a/app/d"}},"publishTimestamp":null}` {
		t.Errorf("a draft's status: %s", got)
	}
}

func TestKptfileReadiness(t *testing.T) {
	t.Parallel()
	for kf, want := range map[string]bool{
		ready:    true,
		notReady: false,
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n": true,
		"apiVersion: kpt.dev/v1\nkind: Kptfile\ninfo:\n  readinessGates:\n  - conditionType: A\n  - conditionType: B\nstatus:\n  conditions:\n  - type: A\n    status: \"True\"\n": false,
		"{{": true, // Porch sees no gates in a Kptfile it cannot read
	} {
		k, _ := ReadKptfile([]byte(kf))
		if got := k.Ready(); got != want {
			t.Errorf("Ready(%q) = %v", kf, got)
		}
	}
}

func TestPullPush(t *testing.T) {
	t.Parallel()
	rev := &Revision{Name: "deploy.app.ws", Commit: hash("d")}
	pulled := Pulled(repo, rev, kptpkg.Files{"Kptfile": []byte("k")})
	want := "apiVersion: porch.kpt.dev/v1alpha1\nkind: KptRevisionMetadata\nmetadata:\n  name: deploy.app.ws\n  namespace: default\n  uid: " + UID("default", "deploy.app.ws") + "\n  resourceVersion: " + hash("d") + "\n"
	if diff := cmp.Diff(want, string(pulled[MetadataFile])); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	rv, rest, err := ResourceVersion(pulled)
	if err != nil || rv != hash("d") || len(rest) != 1 || string(rest["Kptfile"]) != "k" {
		t.Errorf("ResourceVersion = %q, %v, %v", rv, rest, err)
	}
	for files, wantErr := range map[string]string{
		"":                  "\".KptRevisionMetadata\" not found in the package\nuse \"kptkit rpkg pull\" to download the remote package metadata before pushing",
		"kind: Other\n":     "\".KptRevisionMetadata\" does not contain kind \"KptRevisionMetadata\"",
		"kind: [unbalanced": "\".KptRevisionMetadata\" does not contain kind \"KptRevisionMetadata\"",
	} {
		f := kptpkg.Files{}
		if files != "" {
			f[MetadataFile] = []byte(files)
		}
		if _, _, err := ResourceVersion(f); errText(err) != wantErr {
			t.Errorf("ResourceVersion(%q): %v", files, err)
		}
	}
}

func TestCloneUpstream(t *testing.T) {
	t.Parallel()
	catalog := Repository{Name: "catalog", URL: "https://example.com/catalog", Directory: "pkgs"}
	up, lock := CloneUpstream(catalog, &Revision{Package: "app", Path: "pkgs/app", Ref: "refs/tags/pkgs/app/v2", Commit: hash("c")})
	b, _ := yaml.Marshal(struct {
		U kptfile.Upstream     `yaml:"upstream"`
		L kptfile.UpstreamLock `yaml:"upstreamLock"`
	}{up, lock})
	want := "upstream:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: pkgs/app/v2\nupstreamLock:\n  type: git\n  git:\n    repo: https://example.com/catalog.git\n    directory: app\n    ref: pkgs/app/v2\n    commit: " + hash("c") + "\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("upstream (-want +got):\n%s", diff)
	}
}

func TestRepositories(t *testing.T) {
	t.Parallel()
	objects, err := yamlDocs(`apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: deploy
spec:
  type: git
  deployment: true
  git:
    repo: /srv/deploy.git
    directory: /clusters/edge1/
    createBranch: true
    email: bot@example.com
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: other-ns
  namespace: prod
spec:
  git:
    repo: /srv/x.git
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: images
spec:
  type: oci
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: broken
spec:
  git:
    branch: main
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: typo
spec:
  git:
    repo: [1]
`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Repositories(objects, []string{"c.yaml", "c.yaml", "c.yaml", "c.yaml", "c.yaml"}, "default")
	want := []Repository{{Name: "deploy", Namespace: "default", URL: "/srv/deploy.git", Branch: "main", Directory: "clusters/edge1", CreateBranch: true, Deployment: true, Email: "bot@example.com", File: "c.yaml"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("repositories (-want +got):\n%s", diff)
	}
	if errText(err) != "c.yaml: Repository broken: git.repo property is required\nc.yaml: Repository typo: spec.git.repo: must be a string, not a list" {
		t.Errorf("errors: %v", err)
	}
}

func yamlDocs(s string) ([]*yaml.RNode, error) {
	var out []*yaml.RNode
	for _, doc := range strings.Split(s, "---\n") {
		n, err := yaml.Parse(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}
