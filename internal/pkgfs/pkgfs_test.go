package pkgfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestWriteInPlace: changed and new files are written, removed ones
// removed, unchanged ones and files nobody named left alone.
func TestWriteInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := kptpkg.Files{"Kptfile": []byte("k\n"), "a.yaml": []byte("a\n"), "sub/b.yaml": []byte("b\n"), "gone.yaml": []byte("g\n")}
	if err := pkgfs.Write(dir, nil, old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged, err := os.Stat(filepath.Join(dir, "sub", "b.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := kptpkg.Files{"Kptfile": []byte("k\n"), "a.yaml": []byte("a2\n"), "sub/b.yaml": []byte("b\n"), "new/c.yaml": []byte("c\n")}
	if err := pkgfs.Write(dir, old, files); err != nil {
		t.Fatal(err)
	}
	got, err := pkgfs.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := files.Clone()
	want["other.txt"] = []byte("mine\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folder (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(filepath.Join(dir, "sub", "b.yaml")); err != nil || !os.SameFile(info, unchanged) {
		t.Error("an unchanged file was rewritten")
	}
}

func TestWriteInPlaceRefusesPathsOutside(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"../x.yaml", "/abs.yaml", "a/../../x", "a//b", ""} {
		dir := t.TempDir()
		if err := pkgfs.Write(filepath.Join(dir, "pkg"), nil, kptpkg.Files{"ok.yaml": []byte("x"), p: []byte("x")}); err == nil {
			t.Errorf("%q: no error", p)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q: something was written before the error", p)
		}
	}
}

// TestWriteRefusesSymlinkEscape: a link inside the package leading out
// cannot be written through.
func TestWriteInPlaceRefusesSymlinkEscape(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := pkgfs.Write(dir, nil, kptpkg.Files{"out/x.yaml": []byte("x")}); err == nil {
		t.Error("wrote through a link leading out")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Error("a file appeared outside the package")
	}
}
