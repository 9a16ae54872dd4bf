package pkgupdate_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	kf "github.com/kptkit/kptkit/pkg/api/kptfile"
	kptfiles "github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
	"github.com/kptkit/kptkit/pkg/result"
)

var (
	origin1 = pkgupdate.Origin{Repo: "https://example.com/blueprints.git", Directory: "app", Ref: "app/v1", Commit: "1111111"}
	origin2 = pkgupdate.Origin{Repo: "https://example.com/blueprints.git", Directory: "app", Ref: "app/v2", Commit: "2222222"}
)

// lineage is the upstream and upstreamLock Clone and Update write for o.
func lineage(o pkgupdate.Origin) string {
	return "upstream:\n  type: git\n  git:\n    repo: " + o.Repo + "\n    directory: " + o.Directory + "\n    ref: " + o.Ref +
		"\n  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n    repo: " + o.Repo +
		"\n    directory: " + o.Directory + "\n    ref: " + o.Ref + "\n    commit: \"" + o.Commit + "\"\n"
}

func TestClone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		upstream kptpkg.Files
		origin   pkgupdate.Origin
		want     map[string]string
	}{{
		name:     "an upstream without a Kptfile",
		upstream: kptpkg.Files{"a.yaml": []byte(configMap("a", "k: v")), "notes.txt": []byte("notes\n")},
		origin:   origin1,
		want: map[string]string{
			"Kptfile":   kptfile("app") + lineage(origin1),
			"a.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: a\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|a'\ndata:\n  k: v\n",
			"notes.txt": "notes\n",
		},
	}, {
		name: "a Kptfile with comments, a namespace and a lineage of its own",
		upstream: kptpkg.Files{"Kptfile": []byte(`# the blueprint
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: blueprint # its name
  namespace: blueprints
upstream:
  type: git
  git:
    repo: https://example.com/base.git # where it came from
    directory: base
    ref: main
  updateStrategy: fast-forward
upstreamLock:
  type: git
  git:
    repo: https://example.com/base.git
    directory: base
    ref: main
    commit: abc
info:
  description: a blueprint
`)},
		origin: origin1,
		want: map[string]string{"Kptfile": `# the blueprint
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app # its name
upstream:
  type: git
  git:
    repo: https://example.com/blueprints.git # where it came from
    directory: app
    ref: app/v1
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: https://example.com/blueprints.git
    directory: app
    ref: app/v1
    commit: "1111111"
info:
  description: a blueprint
`},
	}, {
		name:     "a folder upstream: no upstreamLock",
		upstream: kptpkg.Files{"Kptfile": []byte(kptfile("x") + "upstreamLock:\n  type: git\n  git:\n    commit: abc\ninfo:\n  description: d\n")},
		origin:   pkgupdate.Origin{Repo: "upstream", Directory: "x", Ref: "main"},
		want: map[string]string{"Kptfile": kptfile("app") +
			"upstream:\n  type: git\n  git:\n    repo: upstream\n    directory: x\n    ref: main\n  updateStrategy: resource-merge\ninfo:\n  description: d\n"},
	}, {
		name:     "a lock ref kpt resolved",
		upstream: kptpkg.Files{"Kptfile": []byte(kptfile("x"))},
		origin:   pkgupdate.Origin{Repo: "/repo", Directory: "/pkg", Ref: "v1", LockRef: "pkg/v1", Commit: "abc"},
		want: map[string]string{"Kptfile": kptfile("app") +
			"upstream:\n  type: git\n  git:\n    repo: /repo\n    directory: /pkg\n    ref: v1\n  updateStrategy: resource-merge\n" +
			"upstreamLock:\n  type: git\n  git:\n    repo: /repo\n    directory: /pkg\n    ref: pkg/v1\n    commit: abc\n"},
	}, {
		name: "what kpt leaves alone keeps its bytes",
		upstream: kptpkg.Files{
			"Kptfile":         []byte(kptfile("app")),
			"nameless.yaml":   []byte("apiVersion:   v1\nkind: List\nitems: []\n"),
			"empty.yaml":      []byte("# nothing yet\n"),
			"marked.yaml":     []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: a\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|a'\n"),
			"sub/Kptfile":     []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n    name: sub # four spaces\n"),
			".krmignore":      []byte("ignored.yaml\n"),
			"ignored.yaml":    []byte("not: [yaml\n"),
			"sub/values.json": []byte("{}\n"),
		},
		origin: origin1,
		want: map[string]string{
			"Kptfile":         kptfile("app") + lineage(origin1),
			"nameless.yaml":   "apiVersion:   v1\nkind: List\nitems: []\n",
			"empty.yaml":      "# nothing yet\n",
			"marked.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: a\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|a'\n",
			"sub/Kptfile":     "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n    name: sub # four spaces\n",
			".krmignore":      "ignored.yaml\n",
			"ignored.yaml":    "not: [yaml\n",
			"sub/values.json": "{}\n",
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := pkgupdate.Clone(c.upstream, "app", c.origin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, texts(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// clone is Clone for tests.
func clone(t testing.TB, upstream kptpkg.Files, o pkgupdate.Origin) kptpkg.Files {
	t.Helper()
	got, err := pkgupdate.Clone(upstream, "app", o)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 1
  selector:
    matchLabels:
      app: app
  template:
    spec:
      containers:
      - name: app
        image: app:1
        args: [a, b]
        env:
        - name: MODE
          value: slow
      - name: sidecar
        image: sidecar:1
`

// marked is a Deployment as Clone writes it.
func marked(s string) string {
	return strings.Replace(s, "metadata:\n  name: app\n", "metadata: # kpt-merge: /app\n  name: app\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|app'\n", 1)
}

var deploymentRef = result.ResourceRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "app"}

func TestUpdateConflicts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name            string
		upstream, local func(string) string
		want            []pkgupdate.Conflict
		merged          string // the Deployment with TakeUpstream
	}{{
		name:     "a scalar",
		upstream: func(s string) string { return strings.Replace(s, "replicas: 1", "replicas: 2", 1) },
		local:    func(s string) string { return strings.Replace(s, "replicas: 1", "replicas: 3", 1) },
		want:     []pkgupdate.Conflict{{Field: "spec.replicas", Original: "1", Local: "3", Upstream: "2"}},
		merged:   strings.Replace(deployment, "replicas: 1", "replicas: 2", 1),
	}, {
		name:     "a container's field, by the container's name",
		upstream: func(s string) string { return strings.Replace(s, "image: sidecar:1", "image: sidecar:2", 1) },
		local:    func(s string) string { return strings.Replace(s, "image: sidecar:1", "image: sidecar:mine", 1) },
		want:     []pkgupdate.Conflict{{Field: "spec.template.spec.containers[name=sidecar].image", Original: "sidecar:1", Local: "sidecar:mine", Upstream: "sidecar:2"}},
		merged:   strings.Replace(deployment, "image: sidecar:1", "image: sidecar:2", 1),
	}, {
		name:     "a list that is not merged by key",
		upstream: func(s string) string { return strings.Replace(s, "args: [a, b]", "args: [a, b, c]", 1) },
		local:    func(s string) string { return strings.Replace(s, "args: [a, b]", "args: [a]", 1) },
		want:     []pkgupdate.Conflict{{Field: "spec.template.spec.containers[name=app].args", Original: "[a, b]", Local: "[a]", Upstream: "[a, b, c]"}},
		merged:   strings.Replace(deployment, "args: [a, b]", "args: [a, b, c]", 1),
	}, {
		name:     "deleted here, changed upstream",
		upstream: func(s string) string { return strings.Replace(s, "value: slow", "value: fast", 1) },
		local:    func(s string) string { return strings.Replace(s, "          value: slow\n", "", 1) },
		want:     []pkgupdate.Conflict{{Field: "spec.template.spec.containers[name=app].env[name=MODE].value", Original: "slow", Upstream: "fast"}},
		merged:   strings.Replace(deployment, "value: slow", "value: fast", 1),
	}, {
		name:     "changed here, deleted upstream",
		upstream: func(s string) string { return strings.Replace(s, "  replicas: 1\n", "", 1) },
		local:    func(s string) string { return strings.Replace(s, "replicas: 1", "replicas: 3", 1) },
		want:     []pkgupdate.Conflict{{Field: "spec.replicas", Original: "1", Local: "3"}},
		merged:   strings.Replace(deployment, "  replicas: 1\n", "", 1),
	}, {
		name: "a mapping deleted here, changed upstream",
		upstream: func(s string) string {
			return strings.Replace(s, "      app: app\n", "      app: app\n      tier: web\n", 1)
		},
		local: func(s string) string {
			return strings.Replace(s, "  selector:\n    matchLabels:\n      app: app\n", "", 1)
		},
		want:   []pkgupdate.Conflict{{Field: "spec.selector", Original: "{matchLabels: {app: app}}", Upstream: "{matchLabels: {app: app, tier: web}}"}},
		merged: strings.Replace(deployment, "  selector:\n    matchLabels:\n      app: app\n", "", 1) + "  selector:\n    matchLabels:\n      tier: web\n",
	}, {
		name: "added on both sides, differently",
		upstream: func(s string) string {
			return strings.Replace(s, "  replicas: 1\n", "  replicas: 1\n  paused: true\n", 1)
		},
		local: func(s string) string {
			return strings.Replace(s, "  replicas: 1\n", "  replicas: 1\n  paused: false\n", 1)
		},
		want:   []pkgupdate.Conflict{{Field: "spec.paused", Local: "false", Upstream: "true"}},
		merged: strings.Replace(deployment, "  replicas: 1\n", "  replicas: 1\n  paused: true\n", 1),
	}, {
		name:     "changed alike on both sides: no conflict",
		upstream: func(s string) string { return strings.Replace(s, "replicas: 1", "replicas: 2", 1) },
		local:    func(s string) string { return strings.Replace(s, "replicas: 1", "replicas: 2 # two", 1) },
		merged:   strings.Replace(deployment, "replicas: 1", "replicas: 2", 1), // kyaml's merge takes the upstream's node
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			old := kptpkg.Files{"Kptfile": []byte(kptfile("app")), "deploy.yaml": []byte(deployment)}
			updated := kptpkg.Files{"Kptfile": []byte(kptfile("app")), "deploy.yaml": []byte(c.upstream(deployment))}
			local := clone(t, old, origin1)
			local["deploy.yaml"] = []byte(c.local(string(local["deploy.yaml"])))
			for i := range c.want {
				c.want[i].Ref, c.want[i].File = deploymentRef, "deploy.yaml"
			}

			kept, conflicts, err := pkgupdate.Update(old, updated, local, origin2, pkgupdate.KeepLocal)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, conflicts); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
			if len(c.want) > 0 {
				if diff := cmp.Diff(texts(local), texts(kept)); diff != "" {
					t.Errorf("KeepLocal changed the package (-want +got):\n%s", diff)
				}
			}
			merged, conflicts, err := pkgupdate.Update(old, updated, local, origin2, pkgupdate.TakeUpstream)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, conflicts); diff != "" {
				t.Errorf("conflicts with TakeUpstream (-want +got):\n%s", diff)
			}
			want := map[string]string{"Kptfile": kptfile("app") + lineage(origin2), "deploy.yaml": marked(c.merged)}
			if diff := cmp.Diff(want, texts(merged)); diff != "" {
				t.Errorf("TakeUpstream (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConflictError(t *testing.T) {
	t.Parallel()
	c := pkgupdate.Conflict{Ref: deploymentRef, File: "deploy.yaml", Field: "spec.replicas", Original: "1", Local: "3", Upstream: "2"}
	want := "Deployment/app in deploy.yaml: spec.replicas was changed both here (3) and upstream (2), from 1"
	if got := c.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	c = pkgupdate.Conflict{Ref: result.ResourceRef{Kind: "ConfigMap", Namespace: "ns", Name: "cm"}, File: "cm.yaml", Field: `metadata.labels["app.kubernetes.io/name"]`, Upstream: "x"}
	want = `ConfigMap/ns/cm in cm.yaml: metadata.labels["app.kubernetes.io/name"] was changed both here (deleted) and upstream (x), from nothing`
	if got := c.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestUpdateSameUpstream: an update to the revision the package is at
// changes nothing.
func TestUpdateSameUpstream(t *testing.T) {
	t.Parallel()
	for name, upstream := range map[string]kptpkg.Files{
		"edits": upstreamV1(), "subpackages": subpackagesV1(), "named": namedV1(), "no Kptfile": noKptfileV1(),
	} {
		local := clone(t, upstream, origin1)
		got, conflicts, err := pkgupdate.Update(upstream, upstream, local, origin1, pkgupdate.KeepLocal)
		if err != nil {
			t.Fatal(err)
		}
		if len(conflicts) > 0 {
			t.Errorf("%s: conflicts: %v", name, conflicts)
		}
		if diff := cmp.Diff(texts(local), texts(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestUpdateOtherFiles: files that are not resources, as kpt updates them.
func TestUpdateOtherFiles(t *testing.T) {
	t.Parallel()
	old := kptpkg.Files{
		"Kptfile": []byte(kptfile("app")), "README.md": []byte("v1\n"), "LICENSE": []byte("v1\n"),
		"gone.txt": []byte("v1\n"), "edited.txt": []byte("v1\n"), ".gitignore": []byte("v1\n"),
		".krmignore": []byte("values.yaml\n"), "values.yaml": []byte("x: 1\n"),
	}
	updated := edit(t, old, map[string]func(string) string{
		"README.md": constant("v2\n"), "LICENSE": constant("v2\n"), "gone.txt": nil, "edited.txt": nil,
		".gitignore": constant("v2\n"), "values.yaml": constant("x: 2\n"), "new.txt": constant("v2\n"),
	})
	local := edit(t, clone(t, old, origin1), map[string]func(string) string{
		"README.md": nil, "LICENSE": constant("mine\n"), "edited.txt": constant("mine\n"), "mine.txt": constant("mine\n"),
	})
	got, _, err := pkgupdate.Update(old, updated, local, origin2, pkgupdate.KeepLocal)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Kptfile":     kptfile("app") + lineage(origin2),
		"README.md":   "v2\n",   // deleted here, changed upstream: back (as kpt does)
		"LICENSE":     "mine\n", // changed on both sides: the downstream's
		"edited.txt":  "mine\n", // changed here, deleted upstream: kept
		"mine.txt":    "mine\n",
		"new.txt":     "v2\n",
		".gitignore":  "v1\n", // kpt leaves paths with ".git" alone
		".krmignore":  "values.yaml\n",
		"values.yaml": "x: 2\n", // named by .krmignore: updated as a file (kpt leaves it)
	}
	if diff := cmp.Diff(want, texts(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLineage(t *testing.T) {
	t.Parallel()
	local := clone(t, kptpkg.Files{"Kptfile": []byte(kptfile("x"))}, origin1)
	root, err := kptfiles.Root(local)
	if err != nil {
		t.Fatal(err)
	}
	l, err := kptfiles.LineageOf(root)
	if err != nil {
		t.Fatal(err)
	}
	want := kptfiles.Lineage{
		Upstream: &kf.Upstream{Type: "git", Git: &kf.Git{Repo: origin1.Repo, Directory: "app", Ref: "app/v1"}, UpdateStrategy: "resource-merge"},
		Lock:     &kf.UpstreamLock{Type: "git", Git: &kf.GitLock{Repo: origin1.Repo, Directory: "app", Ref: "app/v1", Commit: "1111111"}},
	}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("lineage (-want +got):\n%s", diff)
	}
	o, ok, err := pkgupdate.Lock(local)
	if err != nil || !ok || o != origin1 {
		t.Errorf("Lock = %+v, %v, %v; want %+v", o, ok, err, origin1)
	}
	if _, ok, err := pkgupdate.Lock(kptpkg.Files{"Kptfile": []byte(kptfile("x"))}); ok || err != nil {
		t.Errorf("Lock of a package without a lock = %v, %v", ok, err)
	}
	if _, ok, err := pkgupdate.Lock(kptpkg.Files{}); ok || err != nil {
		t.Errorf("Lock of a package without a Kptfile = %v, %v", ok, err)
	}
}

// TestUpdateConcurrently: the fleet updates packages in parallel (kyaml's
// schema is shared).
func TestUpdateConcurrently(t *testing.T) {
	t.Parallel()
	v1 := upstreamV1()
	v2 := upstreamV2(t, v1)
	local := downstreamEdits(t, clone(t, v1, origin1))
	want, _, err := pkgupdate.Update(v1, v2, local, origin2, pkgupdate.KeepLocal)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			got, _, err := pkgupdate.Update(v1, v2, local, origin2, pkgupdate.KeepLocal)
			if err == nil && !got.Equal(want) {
				err = fmt.Errorf("run %d differs", i)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
