package upstream_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/internal/upstream"
)

// TestReleases: every version tag below the folder is a release, read at
// its commit; a package's latest version is the highest whose files are
// the package's at the head of main (db: v1, main went back to its files;
// web: none, main moved on); other tags are not releases; without main
// there is no latest version.
func TestReleases(t *testing.T) {
	t.Parallel()
	kptfile := func(name string) string {
		return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n"
	}
	r := gittest.New(t)
	c1 := r.Commit("v1", map[string]string{"catalog/db/Kptfile": kptfile("db"), "catalog/web/Kptfile": kptfile("web"), "other/x/Kptfile": kptfile("x")},
		"catalog/db/v1", "catalog/web/v1.2.0", "other/x/v1", "catalog/db/latest", "release-notes")
	c2 := r.Commit("v2", map[string]string{"catalog/db/cm.yaml": "kind: ConfigMap\n"}, "catalog/db/v2", "catalog/db/v1.0.1")
	r.Commit("main back at db v1, web moved on", map[string]string{"catalog/db/cm.yaml": "", "catalog/web/cm.yaml": "kind: ConfigMap\n"})

	type release struct{ Package, Version, Commit string }
	read := func(path string) ([]release, map[string]string) {
		t.Helper()
		g, err := gitrepo.Open(path, path)
		if err != nil {
			t.Fatal(err)
		}
		repo, err := upstream.Releases("platform", "catalog", g)
		if err != nil {
			t.Fatal(err)
		}
		if repo.Name != "platform" {
			t.Errorf("name %q", repo.Name)
		}
		var got []release
		for _, rel := range repo.Releases {
			got = append(got, release{rel.Package, rel.Version, rel.Tree.Commit})
		}
		return got, repo.Latest
	}
	want := []release{{"db", "v1", c1}, {"db", "v1.0.1", c2}, {"db", "v2", c2}, {"web", "v1.2.0", c1}}
	got, latest := read(r.Dir)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("releases (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"db": "v1"}, latest); d != "" {
		t.Errorf("latest (-want +got):\n%s", d)
	}

	r.Git("branch", "-m", "main", "trunk")
	got, latest = read(r.Dir)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("without main: releases (-want +got):\n%s", d)
	}
	if len(latest) != 0 {
		t.Errorf("without main: latest %v, want none", latest)
	}
}
