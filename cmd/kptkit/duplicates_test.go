package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
)

// A key written twice in a mapping of what the user gives kptkit is an
// error naming the file, the resource and the lines of both keys: a
// package file (nothing is written), and an index given to --previous.
func TestDuplicateKeys(t *testing.T) {
	t.Parallel()
	files := renderPkg.Clone()
	files["deploy.yaml"] = []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  name: web\n")
	dir := writePkg(t, files)
	_, stderr, code := runKptkit(t, "render", dir)
	want := "kptkit render: cannot read deploy.yaml: Deployment/app: line 5: mapping key \"name\" already defined at line 4\n"
	if diff := cmp.Diff(want, stderr); code != 1 || diff != "" {
		t.Errorf("render: exit %d, stderr (-want +got):\n%s", code, diff)
	}
	if got, err := pkgfs.Read(dir); err != nil || !cmp.Equal(files, got) {
		t.Errorf("render changed the package (%v):\n%s", err, cmp.Diff(files, got))
	}

	index := filepath.Join(t.TempDir(), "index.yaml")
	if err := os.WriteFile(index, []byte("apiVersion: fn.kptkit.dev/v1alpha1\nkind: CatalogPackage\nmetadata:\n  name: db\nspec:\n  repo: a\n  repo: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readIndex(index)
	if diff := cmp.Diff("--previous "+index+": CatalogPackage/db: line 7: mapping key \"repo\" already defined at line 6", fmt.Sprint(err)); diff != "" {
		t.Errorf("readIndex (-want +got):\n%s", diff)
	}
}
