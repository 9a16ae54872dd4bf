package pkgfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// deepChain writes a package whose one ConfigMap lies depth folders down
// (each named d), and returns its folder and the file's path.
func deepChain(t testing.TB, depth int) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Kptfile"), []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimSuffix(strings.Repeat("d/", depth), "/")
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	p := rel + "/cm.yaml"
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, p
}

// openFiles counts this process's open file descriptors (-1 where
// /proc/self/fd is missing).
func openFiles() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// TestReadDeep: a package 256 folders deep is read whole, every folder
// it opened closed again; one folder deeper is refused, naming the bound.
func TestReadDeep(t *testing.T) {
	dir, p := deepChain(t, kptpkg.MaxDepth)
	before := openFiles()
	files, err := pkgfs.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Kptfile", p}, files.Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if after := openFiles(); after != before {
		t.Errorf("%d files open before the read, %d after", before, after)
	}
	dir, _ = deepChain(t, kptpkg.MaxDepth+1)
	_, err = pkgfs.Read(dir)
	if !errors.Is(err, kptpkg.ErrTooDeep) || !strings.HasSuffix(err.Error(), ": folder d/d/(254 more)/d is 257 levels deep: kptkit reads a package at most 256 folders deep") {
		t.Errorf("257 levels: err = %v", err)
	}
}

// TestReadRefusesSymlinksBelow: a symbolic link in a subfolder is an error
// naming its path in the package.
func TestReadRefusesSymlinksBelow(t *testing.T) {
	t.Parallel()
	dir, _ := deepChain(t, 2)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "d", "d", "leak.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := pkgfs.Read(dir)
	if !errors.Is(err, kptpkg.ErrSymlink) || !strings.HasSuffix(err.Error(), ": d/d/leak.yaml is a symbolic link: kpt packages are read without following links") {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkReadDeep reads a package whose one ConfigMap lies 256 folders
// down (the deepest kptkit reads): one open per folder.
func BenchmarkReadDeep(b *testing.B) {
	dir, _ := deepChain(b, kptpkg.MaxDepth)
	for b.Loop() {
		if _, err := pkgfs.Read(dir); err != nil {
			b.Fatal(err)
		}
	}
}
