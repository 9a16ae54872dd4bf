package pkgfs_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree returns the files below dir with their content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, s := range state(t, dir) {
		if c, ok := strings.CutPrefix(s, "0644 "); ok {
			out[p] = c
		}
	}
	return out
}

// state returns everything below dir: each file's mode and content, each
// folder (a trailing slash) with its mode.
func state(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[rel+"/"] = fmt.Sprintf("%04o", info.Mode().Perm())
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link " + target
			return err
		}
		b, err := os.ReadFile(p)
		out[rel] = fmt.Sprintf("%04o %s", info.Mode().Perm(), b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func open(t *testing.T, dir string) *pkgfs.Out {
	t.Helper()
	out, err := pkgfs.OpenOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func files(m map[string]string) kptpkg.Files {
	out := kptpkg.Files{}
	for p, c := range m {
		out[p] = []byte(c)
	}
	return out
}

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := open(t, dir)
	defer out.Close()
	v1 := kptpkg.Files{"Kptfile": []byte("k1\n"), "a.yaml": []byte("a\n"), "sub/b.yaml": []byte("b\n")}
	if wrote, err := out.Write("edge01/app", nil, v1); !wrote || err != nil {
		t.Fatalf("first write: %v %v", wrote, err)
	}
	info, _ := os.Stat(filepath.Join(dir, "edge01/app/a.yaml"))
	time.Sleep(10 * time.Millisecond)
	if wrote, err := out.Write("edge01/app", v1, v1); wrote || err != nil {
		t.Fatalf("same files: wrote %v, %v", wrote, err)
	}
	if again, _ := os.Stat(filepath.Join(dir, "edge01/app/a.yaml")); !again.ModTime().Equal(info.ModTime()) {
		t.Error("writing the same files changed a file's mtime")
	}
	v2 := kptpkg.Files{"Kptfile": []byte("k2\n"), "c.yaml": []byte("c\n")}
	if wrote, err := out.Write("edge01/app", v1, v2); !wrote || err != nil {
		t.Fatalf("second write: %v %v", wrote, err)
	}
	want := map[string]string{"edge01/": "0755", "edge01/app/": "0755", "edge01/app/Kptfile": "0644 k2\n", "edge01/app/c.yaml": "0644 c\n",
		".kptkit/": "0755", ".kptkit/lock": state(t, dir)[".kptkit/lock"]}
	if diff := cmp.Diff(want, state(t, dir)); diff != "" {
		t.Errorf("after the second write (-want +got):\n%s", diff)
	}
	pkgs, err := out.Packages()
	if err != nil || !cmp.Equal(pkgs, []string{"edge01/app"}) {
		t.Errorf("Packages() = %v, %v", pkgs, err)
	}
	if err := out.Delete("edge01/app", v2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "edge01")); !os.IsNotExist(err) {
		t.Errorf("an emptied repo folder stays: %v", err)
	}
	for _, bad := range []string{"../x", "/x", "a/../../x", ".", ".kptkit", "r/.app.kptkit-new"} {
		if _, err := out.Write(bad, nil, v1); err == nil && bad != "." {
			t.Errorf("Write(%q) succeeded", bad)
		}
		if err := out.Delete(bad, v1); err == nil {
			t.Errorf("Delete(%q) succeeded", bad)
		}
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(state(t, dir), map[string]string{"Kptfile": "0644 k1\n", "a.yaml": "0644 a\n", "sub/": "0755", "sub/b.yaml": "0644 b\n"}); diff != "" {
		t.Errorf("after writing the folder itself and closing (-got +want):\n%s", diff)
	}
}

// TestWriteKeepsWhatItDidNotRead (issue 20, case 4): an update replaces
// and removes only the files it read; a .git folder, an empty folder and a
// file nobody read stay, a replaced file keeps its mode, and a folder the
// removals empty goes.
func TestWriteKeepsWhatItDidNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := files(map[string]string{"Kptfile": "k1\n", "deploy.sh": "echo 1\n", "gone/x.yaml": "x\n", "keep/y.yaml": "y\n"})
	write(t, dir, map[string]string{"app/Kptfile": "k1\n", "app/deploy.sh": "echo 1\n", "app/gone/x.yaml": "x\n", "app/keep/y.yaml": "y\n",
		"app/.git/HEAD": "ref: refs/heads/main\n", "app/.git/objects/ab/cdef": "blob\n", "app/NOTES.md": "mine\n"})
	for _, d := range []string{"app/empty", "app/keep/empty"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "app/deploy.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := state(t, dir)
	out := open(t, dir)
	newFiles := files(map[string]string{"Kptfile": "k2\n", "deploy.sh": "echo 2\n", "keep/y.yaml": "y\n", "new/z.yaml": "z\n"})
	if _, err := out.Write("app", old, newFiles); err != nil {
		t.Fatal(err)
	}
	out.Close()
	want := before
	for _, p := range []string{"app/gone/", "app/gone/x.yaml"} {
		delete(want, p)
	}
	want["app/Kptfile"] = "0644 k2\n"
	want["app/deploy.sh"] = "0755 echo 2\n"
	want["app/new/"] = "0755"
	want["app/new/z.yaml"] = "0644 z\n"
	if diff := cmp.Diff(want, state(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWriteAllOrNothing (issue 20, case 5a): a write that cannot be done
// whole changes nothing — every path is checked before anything is
// written.
func TestWriteAllOrNothing(t *testing.T) {
	t.Parallel()
	disk := map[string]string{"Kptfile": "k\n", "a.yaml": "a\n", "b.yaml": "b\n", "dir/c.yaml": "c\n", "dir/mine.txt": "mine\n", "hand.yaml": "by hand\n"}
	old := files(map[string]string{"Kptfile": "k\n", "a.yaml": "a\n", "b.yaml": "b\n", "dir/c.yaml": "c\n"})
	with := func(add map[string]string, drop ...string) kptpkg.Files {
		f := old.Clone()
		for p, c := range add {
			f[p] = []byte(c)
		}
		for _, p := range drop {
			delete(f, p)
		}
		return f
	}
	for _, c := range []struct {
		name  string
		files kptpkg.Files
		want  string
	}{
		{"a new file below a file that stays", with(map[string]string{"a.yaml": "a2\n", "b.yaml/x.yaml": "x\n"}), "cannot write b.yaml/x.yaml: b.yaml is a file of the package too"},
		{"a file in the place of a folder holding a file kptkit did not read", with(map[string]string{"a.yaml": "a2\n", "dir": "d\n"}, "dir/c.yaml"), "cannot write dir: a folder is in its place"},
		{"over a file kptkit did not read", with(map[string]string{"a.yaml": "a2\n", "hand.yaml": "mine now\n"}), "cannot write hand.yaml: a file kptkit did not read is in its place"},
		{"below a file kptkit did not read", with(map[string]string{"a.yaml": "a2\n", "hand.yaml/x.yaml": "x\n"}), "cannot write hand.yaml/x.yaml: hand.yaml is a file"},
		{"a reserved name", with(map[string]string{"a.yaml": "a2\n", ".kptkit/x": "x\n"}), `file ".kptkit/x": the name ".kptkit" is kptkit's own`},
		{"an earlier kptkit's scratch name", with(map[string]string{"a.yaml": "a2\n", ".b.yaml.kptkit-new": "x\n"}), `the name ".b.yaml.kptkit-new" is kptkit's own`},
		{"a path leaving the folder", with(map[string]string{"a.yaml": "a2\n", "../x.yaml": "x\n"}), `file "../x.yaml" must stay inside its folder`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, map[string]string{"outside.txt": "o\n"})
			for p, s := range disk {
				write(t, dir, map[string]string{"pkg/" + p: s})
			}
			before := state(t, dir)
			err := pkgfs.Write(filepath.Join(dir, "pkg"), old, c.files)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
			if diff := cmp.Diff(before, state(t, dir)); diff != "" {
				t.Errorf("changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestWriteFileOverFolder: a file may take the place of a folder whose
// files the write removes (and of the folders below it, emptied).
func TestWriteFileOverFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, map[string]string{"pkg/Kptfile": "k\n", "pkg/b/x.yaml": "x\n", "pkg/b/c/y.yaml": "y\n", "pkg/d.yaml": "d\n"})
	old := files(map[string]string{"Kptfile": "k\n", "b/x.yaml": "x\n", "b/c/y.yaml": "y\n", "d.yaml": "d\n"})
	newFiles := files(map[string]string{"Kptfile": "k\n", "b": "now a file\n", "d.yaml/e.yaml": "now a folder\n"})
	if err := pkgfs.Write(filepath.Join(dir, "pkg"), old, newFiles); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pkg/": "0755", "pkg/Kptfile": "0644 k\n", "pkg/b": "0644 now a file\n", "pkg/d.yaml/": "0755", "pkg/d.yaml/e.yaml": "0644 now a folder\n"}
	if diff := cmp.Diff(want, state(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDeleteLeavesWhatItDidNotRead: a deleted package's files go, and the
// folders that leaves empty; a file nobody read, and a folder the user
// made empty, stay with the folders above them.
func TestDeleteLeavesWhatItDidNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, map[string]string{"r/app/Kptfile": "k\n", "r/app/a/x.yaml": "x\n", "r/app/b/y.yaml": "y\n", "r/app/b/NOTES.md": "mine\n", "r/other/Kptfile": "o\n"})
	if err := os.Mkdir(filepath.Join(dir, "r/app/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := open(t, dir)
	if err := out.Delete("r/app", files(map[string]string{"Kptfile": "k\n", "a/x.yaml": "x\n", "b/y.yaml": "y\n"})); err != nil {
		t.Fatal(err)
	}
	out.Close()
	want := map[string]string{"r/": "0755", "r/app/": "0755", "r/app/b/": "0755", "r/app/b/NOTES.md": "0644 mine\n", "r/app/empty/": "0755",
		"r/other/": "0755", "r/other/Kptfile": "0644 o\n"}
	if diff := cmp.Diff(want, state(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestReadRefusesLinksOut: a link leading out of the folder is neither
// read nor written through.
func TestReadRefusesLinksOut(t *testing.T) {
	t.Parallel()
	dir, victim := t.TempDir(), t.TempDir()
	write(t, victim, map[string]string{"Kptfile": "secret\n"})
	if err := os.Symlink(victim, filepath.Join(dir, "edge01")); err != nil {
		t.Fatal(err)
	}
	out := open(t, dir)
	defer out.Close()
	if files, err := out.Read("edge01"); err == nil {
		t.Errorf("read through a link out: %v", files)
	}
	if _, err := out.Write("edge01/app", nil, kptpkg.Files{"Kptfile": []byte("x\n")}); err == nil {
		t.Error("wrote through a link out")
	}
	if got := tree(t, victim); !cmp.Equal(got, map[string]string{"Kptfile": "secret\n"}) {
		t.Errorf("the folder a link points at changed: %v", got)
	}
}

// TestWriteInsideLinkRefused: a link inside the folder, even to a place
// inside it, is not written through.
func TestWriteInsideLinkRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, map[string]string{"pkg/Kptfile": "k\n", "pkg/real/x.yaml": "x\n"})
	if err := os.Symlink("real", filepath.Join(dir, "pkg/link")); err != nil {
		t.Fatal(err)
	}
	before := state(t, dir)
	err := pkgfs.Write(filepath.Join(dir, "pkg"), files(map[string]string{"Kptfile": "k\n"}), files(map[string]string{"Kptfile": "k\n", "link/y.yaml": "y\n"}))
	if err == nil || !strings.Contains(err.Error(), "link is not a folder") {
		t.Errorf("error %v", err)
	}
	if diff := cmp.Diff(before, state(t, dir)); diff != "" {
		t.Errorf("changed (-before +after):\n%s", diff)
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, map[string]string{"run.sh": "1\n"})
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o700); err != nil {
		t.Fatal(err)
	}
	out := open(t, dir)
	for _, c := range []struct {
		p, data string
		wrote   bool
	}{{"run.sh", "2\n", true}, {"run.sh", "2\n", false}, {"sub/status.yaml", "s\n", true}} {
		if wrote, err := out.WriteFile(c.p, []byte(c.data)); err != nil || wrote != c.wrote {
			t.Errorf("WriteFile(%s) = %v, %v", c.p, wrote, err)
		}
	}
	if _, err := out.WriteFile(".kptkit/x", nil); err == nil {
		t.Error("wrote into the reserved folder")
	}
	out.Close()
	want := map[string]string{"run.sh": "0700 2\n", "sub/": "0755", "sub/status.yaml": "0644 s\n"}
	if diff := cmp.Diff(want, state(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
