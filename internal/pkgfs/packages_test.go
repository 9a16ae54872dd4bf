package pkgfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestPackages: the packages of an output are its folders holding a
// Kptfile (a regular file, not a link) with none above them, found with
// kptpkg.Walk: a package 256 folders down is found, every folder opened
// closed again; a folder deeper than that is refused, naming the bound;
// .git folders, the reserved folder and what lies in a package are not
// looked in. (Not parallel: it counts the process's open files.)
func TestPackages(t *testing.T) {
	dir := t.TempDir()
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\n"
	deep := strings.Repeat("d/", kptpkg.MaxDepth-1) + "app"
	for p, c := range map[string]string{
		"edge01/app/Kptfile":           kf,
		"edge01/app/sub/Kptfile":       kf, // a subpackage: part of its package
		"edge01/b-app/Kptfile":         kf,
		"edge01/.git/x/Kptfile":        kf,
		".kptkit/x/Kptfile":            kf,
		"edge02/notes/README.md":       "no Kptfile\n",
		"edge02/linked/cm.yaml":        "x: 1\n",
		deep + "/Kptfile":              kf,
		"edge02/Kptfile-not-here/x.md": "x\n",
	} {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "edge01", "app", "Kptfile"), filepath.Join(dir, "edge02", "linked", "Kptfile")); err != nil {
		t.Fatal(err)
	}
	out := open(t, dir)
	defer out.Close()
	before := openFiles()
	pkgs, err := out.Packages()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{deep, "edge01/app", "edge01/b-app"}, pkgs); diff != "" {
		t.Errorf("Packages() (-want +got):\n%s", diff)
	}
	if after := openFiles(); after != before {
		t.Errorf("%d files open before, %d after", before, after)
	}
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(strings.Repeat("e/", kptpkg.MaxDepth+1))), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Packages(); !errors.Is(err, kptpkg.ErrTooDeep) || !strings.HasSuffix(err.Error(), "folder e/e/(254 more)/e is 257 levels deep: kptkit reads a package at most 256 folders deep") {
		t.Errorf("257 levels: err = %v", err)
	}
}
