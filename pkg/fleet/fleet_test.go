package fleet_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/result"
)

func outcomes(r *fleet.Report) []string {
	var out []string
	for _, v := range r.Variants {
		s := string(v.Outcome)
		if v.Skipped {
			s += " (skipped)"
		}
		out = append(out, v.Path()+": "+s)
	}
	return out
}

// setsAndInjection is the run of testdata/sets-and-injection over an empty
// store, without rendering.
func setsAndInjection(t *testing.T) (fleet.Input, fleet.Options, *memStore) {
	t.Helper()
	dir := "testdata/sets-and-injection"
	in := readInput(t, dir)
	store := newMemStore()
	opts := fleet.Options{
		Source: &upstream.Source{Folder: readTree(t, filepath.Join(dir, "upstream"))},
		Store:  store, Env: krmtest.Env(krmtest.Clock, nil), Prune: true, Salt: "test",
	}
	return in, opts, store
}

// TestSecondRunSkips: a run over an output nothing changed renders
// nothing; a changed file, or a changed input, renders the package again.
func TestSecondRunSkips(t *testing.T) {
	t.Parallel()
	in, opts, store := setsAndInjection(t)
	run := func() []string {
		t.Helper()
		r, err := fleet.Run(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		return outcomes(r)
	}
	run()
	first := map[string]kptpkg.Files{}
	for p, f := range store.packages() {
		first[p] = f
	}
	want := []string{"edge01/app: unchanged (skipped)", "edge02/app: unchanged (skipped)", "core01/platform/app: unchanged (skipped)"}
	if diff := cmp.Diff(want, run()); diff != "" {
		t.Errorf("second run (-want +got):\n%s", diff)
	}
	// A hand edit in one package: that package is rendered again.
	edited := store.pkg("edge01/app").Clone()
	edited["deployment.yaml"] = append(edited["deployment.yaml"], []byte("# edited\n")...)
	store.set("edge01/app", edited)
	want[0] = "edge01/app: updated"
	if diff := cmp.Diff(want, run()); diff != "" {
		t.Errorf("after an edit (-want +got):\n%s", diff)
	}
	if !store.pkg("edge01/app").Equal(first["edge01/app"]) {
		t.Error("rendering again did not give the package it gave before")
	}
	// Another tool: every package is rendered again; only the seal in its
	// Kptfile changes.
	opts.Salt = "another version"
	want = []string{"edge01/app: updated", "edge02/app: updated", "core01/platform/app: updated"}
	if diff := cmp.Diff(want, run()); diff != "" {
		t.Errorf("another tool (-want +got):\n%s", diff)
	}
}

// fakeRenderer renders by a function of the package's files: it sees what
// the variant made of the upstream (its Kptfile among the items).
type fakeRenderer func(files kptpkg.Files, items []*yaml.RNode) (kptpkg.Files, error)

func (f fakeRenderer) Render(files kptpkg.Files, items, before []*yaml.RNode) (kptpkg.Files, result.List, error) {
	out, err := f(files, items)
	return out, result.List{result.Infof("rendered")}, err
}

// TestRender: every variant's package is rendered after the variant's
// changes; a render failure fails that variant alone, Ready=False with
// reason RenderFailed and the function's own message, its package not
// written; a pipeline that loses the Kptfile is a failure too.
func TestRender(t *testing.T) {
	t.Parallel()
	in, opts, store := setsAndInjection(t)
	opts.Render = fakeRenderer(func(files kptpkg.Files, items []*yaml.RNode) (kptpkg.Files, error) {
		var kf *yaml.RNode
		for _, n := range items {
			if n.GetKind() == "Kptfile" {
				kf = n
			}
		}
		owner := kf.GetAnnotations()["kptkit.dev/owner"]
		switch {
		case strings.HasSuffix(owner, "edge02-app"):
			return nil, errors.New(`ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1 (pipeline.mutators[0]) failed: "namespace" should not be empty`)
		case strings.HasSuffix(owner, "/core-app"):
			out := files.Clone()
			delete(out, "Kptfile")
			return out, nil
		}
		out, err := kptpkg.Sink(items, nil, files)
		if err != nil {
			return nil, err
		}
		out["rendered.txt"] = []byte("by " + owner + "\n")
		return out, nil
	})
	r, err := fleet.Run(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range r.Variants {
		got = append(got, fmt.Sprintf("%s: %s %s %s", v.Path(), v.Outcome, v.Reason, v.Message))
		// The renderer's results are the variant's, failed or not.
		if n := len(v.Results); n == 0 || !cmp.Equal(v.Results[n-1], result.Infof("rendered")) {
			t.Errorf("%s: results %v lack the renderer's", v.Path(), v.Results)
		}
	}
	want := []string{
		"edge01/app: created  ",
		`edge02/app: failed RenderFailed ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1 (pipeline.mutators[0]) failed: "namespace" should not be empty`,
		"core01/platform/app: failed RenderFailed the pipeline removed the package's Kptfile (a function's output lacks it)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("variants (-want +got):\n%s", diff)
	}
	if store.pkg("edge02/app") != nil {
		t.Error("a failed render wrote its package")
	}
	if got := string(store.pkg("edge01/app")["rendered.txt"]); !strings.Contains(got, "edge01-app") {
		t.Errorf("edge01's render did not see the variant's Kptfile: %q", got)
	}
	if got, want := string(store.pkg("edge01/app")["rendered.txt"]), "by default/app-edge01-app\n"; got != want {
		t.Errorf("edge01's rendered.txt = %q, want %q", got, want)
	}
	status := ""
	for _, n := range r.Status {
		status += n.MustString() + "---\n"
	}
	if !strings.Contains(status, "reason: RenderFailed\n    message: 'ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1 (pipeline.mutators[0]) failed: \"namespace\" should not be empty'") {
		t.Errorf("status lacks the function's message:\n%s", status)
	}
}

// TestRespelledVariantSkips (issue 22, friction 3): the inputs digest is of
// the variant as understood, not as spelled. A variant written otherwise
// that means the same — `revision: v1` for `revision: 1`, flow or block
// style, quoting, field order, comments, a field Porch ignores — renders
// nothing again; one that means something else renders its package again.
func TestRespelledVariantSkips(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: core-app\n"
	spellings := []string{
		head + "spec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: core01, package: app}\n" +
			"  packageContext: {data: {tier: core, zone: a}}\n" +
			"  pipeline:\n    mutators:\n    - {name: ns, image: set-namespace:v0.4.1, configMap: {namespace: core}}\n",
		head + "spec:\n  # the same variant, written otherwise\n  downstream:\n    package: app\n    repo: 'core01'\n" +
			"  upstream:\n    revision: v1\n    package: \"app\"\n    repo: catalog\n" +
			"  packageContext:\n    data:\n      zone: a\n      tier: core\n" +
			"  pipeline:\n    mutators:\n    - image: set-namespace:v0.4.1 # pinned\n      configMap:\n        namespace: \"core\"\n      name: ns\n" +
			"  notAPorchField: ignored\n",
	}
	in, opts, store := setsAndInjection(t)
	run := func(variant string) []string {
		t.Helper()
		n, err := yaml.Parse(variant)
		if err != nil {
			t.Fatal(err)
		}
		in := in
		in.Variants, in.VariantFiles = []*yaml.RNode{n}, []string{"variants.yaml"}
		r, err := fleet.Run(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		return outcomes(r)
	}
	if diff := cmp.Diff([]string{"core01/app: created"}, run(spellings[0])); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	written := store.pkg("core01/app")
	for i, s := range spellings {
		if diff := cmp.Diff([]string{"core01/app: unchanged (skipped)"}, run(s)); diff != "" {
			t.Errorf("spelling %d (-want +got):\n%s", i, diff)
		}
	}
	if !store.pkg("core01/app").Equal(written) {
		t.Error("a variant written otherwise changed its package")
	}
	changed := strings.Replace(spellings[1], "zone: a", "zone: b", 1)
	if diff := cmp.Diff([]string{"core01/app: updated"}, run(changed)); diff != "" {
		t.Errorf("a changed variant (-want +got):\n%s", diff)
	}
}

// Planned is called once, before the first variant is done.
func TestPlannedBeforeRendering(t *testing.T) {
	t.Parallel()
	in, opts, _ := setsAndInjection(t)
	var events []string
	opts.Jobs = 1
	opts.Planned = func() { events = append(events, "planned") }
	opts.Progress = func(done, total int, v *fleet.Variant) { events = append(events, "done") }
	r, err := fleet.Run(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"planned"}
	for range r.Variants {
		want = append(want, "done")
	}
	if d := cmp.Diff(want, events); d != "" || len(want) < 3 {
		t.Errorf("events (-want +got):\n%s", d)
	}
}
