package fleet_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

const (
	kfV1 = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" +
		"pipeline:\n  mutators:\n  - image: ghcr.io/kptdev/krm-functions-catalog/apply-replacements:v0.1.1\n    configPath: replacements.yaml\n"
	deployV1 = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 2 # tuned per cluster\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1.0\n"
	pointV1  = "apiVersion: infra.nephio.org/v1alpha1\nkind: WorkloadCluster\nmetadata:\n  name: cluster\n  annotations:\n    kpt.dev/config-injection: required\nspec:\n  clusterName: example\n"
	cmV1     = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: prod\n  level: info\n"
	replV1   = "apiVersion: fn.kpt.dev/v1alpha1\nkind: ApplyReplacements\nmetadata:\n  name: r\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\nreplacements: []\n"
)

// catalog is a git repository with the package catalog/app at v1 and v2:
// v2 raises the replicas, changes the point's placeholder, adds a
// ConfigMap and a pipeline function.
func catalog(t *testing.T) string {
	w := gittest.New(t)
	w.Commit("app v1", map[string]string{
		"catalog/app/Kptfile": kfV1, "catalog/app/deploy.yaml": deployV1, "catalog/app/cluster.yaml": pointV1,
		"catalog/app/settings.yaml": cmV1, "catalog/app/replacements.yaml": replV1,
	}, "catalog/app/v1")
	w.Commit("app v2", map[string]string{
		"catalog/app/Kptfile":       kfV1 + "  - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1\n    configMap: {namespace: app}\n",
		"catalog/app/deploy.yaml":   strings.Replace(deployV1, "replicas: 2", "replicas: 3", 1),
		"catalog/app/cluster.yaml":  strings.Replace(pointV1, "clusterName: example", "clusterName: placeholder", 1),
		"catalog/app/extra.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  k: v\n",
		"catalog/app/settings.yaml": cmV1,
	}, "catalog/app/v2")
	return w.Bare()
}

func gitFleet(t *testing.T, repo string, revision string) fleet.Input {
	t.Helper()
	variants := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: edge01-app\nspec:\n" +
		"  upstream: {repo: catalog, package: app, revision: " + revision + "}\n  downstream: {repo: edge01, package: app}\n" +
		"  packageContext: {data: {region: us-east1}}\n  injectors: [{name: edge01}]\n" +
		"  pipeline:\n    mutators:\n    - {name: label, image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0, configMap: {site: edge01}}\n"
	cluster := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: catalog\nspec:\n  type: git\n" +
		"  git: {repo: 'file://" + repo + "', branch: main, directory: /catalog}\n---\n" +
		"apiVersion: infra.nephio.org/v1alpha1\nkind: WorkloadCluster\nmetadata:\n  name: edge01\nspec:\n  clusterName: edge01\n"
	n, err := yaml.Parse(variants)
	if err != nil {
		t.Fatal(err)
	}
	return fleet.Input{Variants: []*yaml.RNode{n}, Cluster: strings.Split(cluster, "---\n")}
}

func runFleet(t *testing.T, in fleet.Input, store *memStore, takeUpstream bool) *fleet.Variant {
	t.Helper()
	r, err := fleet.Run(in, fleet.Options{Source: &upstream.Source{}, Store: store, Env: krmtest.Env(krmtest.Clock, nil),
		Prune: true, Salt: "test", TakeUpstream: takeUpstream})
	if err != nil {
		t.Fatal(err)
	}
	if r.Results.HasError() {
		t.Fatalf("results: %v", r.Results)
	}
	return r.Variants[0]
}

// edit changes a file of the downstream package as a person would.
func edit(t *testing.T, store *memStore, file, old, new string) {
	t.Helper()
	files := store.pkg("edge01/app").Clone()
	if !strings.Contains(string(files[file]), old) {
		t.Fatalf("%s lacks %q:\n%s", file, old, files[file])
	}
	files[file] = []byte(strings.Replace(string(files[file]), old, new, 1))
	store.set("edge01/app", files)
}

// TestUpdateKeepsEdits: moving a variant from v1 to v2 merges the new
// upstream into the package; the edits made by hand survive, the
// variant's own changes (package context, pipeline, injection) are made
// again, and none of them is taken for a conflict.
func TestUpdateKeepsEdits(t *testing.T) {
	t.Parallel()
	repo := catalog(t)
	store := newMemStore()
	if v := runFleet(t, gitFleet(t, repo, "1"), store, false); v.Outcome != fleet.Created {
		t.Fatalf("v1: %s", v)
	}
	v1 := store.pkg("edge01/app").Clone()
	edit(t, store, "settings.yaml", "level: info", "level: debug")                       // a field upstream leaves alone
	edit(t, store, "deploy.yaml", "  name: app\n", "  name: app\n  labels: {team: a}\n") // a label added
	v := runFleet(t, gitFleet(t, repo, "2"), store, false)
	if v.Outcome != fleet.Updated {
		t.Fatalf("v2: %s %v", v, v.Results)
	}
	got := store.pkg("edge01/app")
	for file, want := range map[string][]string{
		"settings.yaml":        {"level: debug"},
		"deploy.yaml":          {"team: a", "replicas: 3 # tuned per cluster"},
		"extra.yaml":           {"name: extra"},
		"cluster.yaml":         {"clusterName: edge01", "kpt.dev/injected-resource: edge01"},
		"package-context.yaml": {"region: us-east1", "name: app"},
		"Kptfile": {"ref: catalog/app/v2", "PackageVariant.edge01-app.label.0", "set-namespace:v0.4.1",
			"kptkit.dev/owner: default/edge01-app", "reason: ConfigInjected"},
	} {
		for _, w := range want {
			if !strings.Contains(string(got[file]), w) {
				t.Errorf("%s lacks %q:\n%s", file, w, got[file])
			}
		}
	}
	if strings.Count(string(got["Kptfile"]), "PackageVariant.edge01-app.label.0") != 1 {
		t.Errorf("the variant's function is not there once:\n%s", got["Kptfile"])
	}
	// Back to v1: the edits still survive.
	if v := runFleet(t, gitFleet(t, repo, "1"), store, false); v.Outcome != fleet.Updated {
		t.Fatalf("back to v1: %s %v", v, v.Results)
	}
	back := store.pkg("edge01/app")
	if !strings.Contains(string(back["settings.yaml"]), "level: debug") || !strings.Contains(string(back["deploy.yaml"]), "team: a") {
		t.Errorf("edits lost going back to v1:\n%s\n%s", back["settings.yaml"], back["deploy.yaml"])
	}
	if _, ok := back["extra.yaml"]; ok {
		t.Error("v2's new file stayed at v1")
	}
	if diff := cmp.Diff(string(v1["deploy.yaml"]), strings.Replace(string(back["deploy.yaml"]), "  labels: {team: a}\n", "", 1)); diff != "" {
		t.Errorf("deploy.yaml at v1 again (-v1 +now):\n%s", diff)
	}
}

// TestUpdateConflict: a field changed by hand and upstream differently
// fails the variant, naming the resource and field, and leaves the package
// as it was; TakeUpstream takes the upstream's value, as kpt does.
func TestUpdateConflict(t *testing.T) {
	t.Parallel()
	repo := catalog(t)
	store := newMemStore()
	runFleet(t, gitFleet(t, repo, "1"), store, false)
	edit(t, store, "deploy.yaml", "replicas: 2", "replicas: 5")
	before := store.pkg("edge01/app").Clone()
	v := runFleet(t, gitFleet(t, repo, "2"), store, false)
	if v.Outcome != fleet.Failed || v.Reason != fleet.ReasonConflict ||
		!strings.Contains(v.Message, "Deployment/app in deploy.yaml: spec.replicas was changed both here (5) and upstream (3), from 2") {
		t.Fatalf("conflict: %s (%s)", v, v.Reason)
	}
	if !store.pkg("edge01/app").Equal(before) {
		t.Error("a conflicting update changed the package")
	}
	v = runFleet(t, gitFleet(t, repo, "2"), store, true)
	if v.Outcome != fleet.Updated || !strings.Contains(string(store.pkg("edge01/app")["deploy.yaml"]), "replicas: 3") {
		t.Errorf("upstream wins: %s\n%s", v, store.pkg("edge01/app")["deploy.yaml"])
	}
}

// TestUpdateUnedited: a package nobody edited is updated to exactly what a
// first render at the new revision makes (no merge needed: its seal says it
// is pristine); once an edit has been merged in, the package is no longer
// pristine, and the next update merges again, keeping the edit.
func TestUpdateUnedited(t *testing.T) {
	t.Parallel()
	repo := catalog(t)
	updated := newMemStore()
	runFleet(t, gitFleet(t, repo, "1"), updated, false)
	if v := runFleet(t, gitFleet(t, repo, "2"), updated, false); v.Outcome != fleet.Updated {
		t.Fatalf("v2: %s %v", v, v.Results)
	}
	fresh := newMemStore()
	runFleet(t, gitFleet(t, repo, "2"), fresh, false)
	if diff := cmp.Diff(strs(fresh.pkg("edge01/app")), strs(updated.pkg("edge01/app"))); diff != "" {
		t.Errorf("v1 updated to v2 differs from v2 made afresh (-fresh +updated):\n%s", diff)
	}
	// An edit merged into v2 makes it no longer pristine: back to v1 and
	// to v2 again, the edit stays.
	edit(t, updated, "settings.yaml", "level: info", "level: debug")
	for _, rev := range []string{"1", "2"} {
		if v := runFleet(t, gitFleet(t, repo, rev), updated, false); v.Outcome != fleet.Updated {
			t.Fatalf("edited, to v%s: %s %v", rev, v, v.Results)
		}
	}
	if got := string(updated.pkg("edge01/app")["settings.yaml"]); !strings.Contains(got, "level: debug") {
		t.Errorf("the edit was lost on the second update:\n%s", got)
	}
}

func strs(f kptpkg.Files) map[string]string {
	m := map[string]string{}
	for p, b := range f {
		m[p] = string(b)
	}
	return m
}
