package fleet_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
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

// TestSecondRunSkips: a run over an output nothing changed renders
// nothing; a changed file, or a changed input, renders the package again.
func TestSecondRunSkips(t *testing.T) {
	t.Parallel()
	dir := "testdata/sets-and-injection"
	var in fleet.Input
	in.Variants, in.VariantFiles = readObjects(t, filepath.Join(dir, "variants.yaml"))
	in.Cluster, in.ClusterFiles = readObjects(t, filepath.Join(dir, "cluster.yaml"))
	store := &memStore{pkgs: map[string]kptpkg.Files{}}
	opts := fleet.Options{
		Source: &upstream.Source{Folder: readTree(t, filepath.Join(dir, "upstream"))},
		Store:  store, Env: krmtest.Env(krmtest.Clock, nil), Prune: true, Salt: "test",
	}
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
	for p, f := range store.pkgs {
		first[p] = f
	}
	want := []string{"edge01/app: unchanged (skipped)", "edge02/app: unchanged (skipped)", "core01/platform/app: unchanged (skipped)"}
	if diff := cmp.Diff(want, run()); diff != "" {
		t.Errorf("second run (-want +got):\n%s", diff)
	}
	// A hand edit in one package: that package is rendered again.
	edited := store.pkgs["edge01/app"].Clone()
	edited["deployment.yaml"] = append(edited["deployment.yaml"], []byte("# edited\n")...)
	store.pkgs["edge01/app"] = edited
	want[0] = "edge01/app: updated"
	if diff := cmp.Diff(want, run()); diff != "" {
		t.Errorf("after an edit (-want +got):\n%s", diff)
	}
	if !store.pkgs["edge01/app"].Equal(first["edge01/app"]) {
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
