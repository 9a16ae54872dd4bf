package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
)

// TestRelativeRepository (issue 22, friction 4): a Repository's relative
// spec.git.repo is a path from the folder of the file it is written in,
// not from the working folder (this test's is cmd/kptkit), for variants
// render and rpkg alike. What kptkit writes keeps the repo as written —
// the Kptfile's upstream, the upstream's key in the inputs digest, the
// seal — so that two checkouts in different places render the same bytes.
func TestRelativeRepository(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Commit("app v1", map[string]string{
		"app/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
		"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
	}, "app/v1")
	render := func() (string, map[string]string) {
		t.Helper()
		dir := workspace(t, map[string]string{
			"variants/pvs.yaml":  gitVariant("app", "app", "edge01"),
			"cluster/repos.yaml": gitRepository("../repos/catalog.git"),
		})
		r.Git("clone", "-q", "--bare", r.Dir, filepath.Join(dir, "repos", "catalog.git"))
		if code, stdout, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster")); code != 0 {
			t.Fatalf("variants render: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		out, stderr, code := runKptkit(t, "rpkg", "get", "--cluster", filepath.Join(dir, "cluster"))
		if code != 0 || !strings.Contains(out, "catalog-git.app.v1") {
			t.Errorf("rpkg get: exit %d, want 0 and the revision catalog-git.app.v1\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		return dir, snapshot(t, filepath.Join(dir, "out"), "")
	}
	dirA, a := render()
	dirB, b := render()
	kf, err := os.ReadFile(filepath.Join(dirA, "out", "edge01", "app", "Kptfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(kf), "    repo: ../repos/catalog.git\n") {
		t.Errorf("the Kptfile does not keep the repo as written:\n%s", kf)
	}
	if dirA == dirB {
		t.Fatal("one folder twice")
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two checkouts in two places rendered different outputs (-%s +%s):\n%s", dirA, dirB, diff)
	}
}
