package pkgfs_test

import (
	"os"
	"path/filepath"
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

func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := pkgfs.OpenOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	v1 := kptpkg.Files{"Kptfile": []byte("k1\n"), "a.yaml": []byte("a\n"), "sub/b.yaml": []byte("b\n")}
	if wrote, err := out.Write("edge01/app", v1); !wrote || err != nil {
		t.Fatalf("first write: %v %v", wrote, err)
	}
	info, _ := os.Stat(filepath.Join(dir, "edge01/app/a.yaml"))
	time.Sleep(10 * time.Millisecond)
	if wrote, err := out.Write("edge01/app", v1); wrote || err != nil {
		t.Fatalf("same files: wrote %v, %v", wrote, err)
	}
	if again, _ := os.Stat(filepath.Join(dir, "edge01/app/a.yaml")); !again.ModTime().Equal(info.ModTime()) {
		t.Error("writing the same files changed a file's mtime")
	}
	v2 := kptpkg.Files{"Kptfile": []byte("k2\n"), "c.yaml": []byte("c\n")}
	if wrote, err := out.Write("edge01/app", v2); !wrote || err != nil {
		t.Fatalf("second write: %v %v", wrote, err)
	}
	want := map[string]string{"edge01/app/Kptfile": "k2\n", "edge01/app/c.yaml": "c\n"}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("after the second write (-want +got):\n%s", diff)
	}
	pkgs, err := out.Packages()
	if err != nil || !cmp.Equal(pkgs, []string{"edge01/app"}) {
		t.Errorf("Packages() = %v, %v", pkgs, err)
	}
	if err := out.Delete("edge01/app"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "edge01")); !os.IsNotExist(err) {
		t.Errorf("an emptied repo folder stays: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the output folder itself went: %v", err)
	}
	for _, bad := range []string{"../x", "/x", "a/../../x", "."} {
		if _, err := out.Write(bad, v1); err == nil {
			t.Errorf("Write(%q) succeeded", bad)
		}
		if err := out.Delete(bad); err == nil {
			t.Errorf("Delete(%q) succeeded", bad)
		}
	}
}

// TestRecover: whatever point a write was interrupted at, opening the
// output makes every package the old or the new one.
func TestRecover(t *testing.T) {
	t.Parallel()
	old := map[string]string{"Kptfile": "old\n", "a.yaml": "old a\n"}
	new := map[string]string{"Kptfile": "new\n", "b.yaml": "new b\n"}
	under := func(dir string, files map[string]string) map[string]string {
		out := map[string]string{}
		for p, c := range files {
			out[dir+"/"+p] = c
		}
		return out
	}
	merge := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	partial := map[string]string{"Kptfile": "new\n"}
	for _, c := range []struct {
		name        string
		left, after map[string]string
	}{
		{"killed while writing the new folder", merge(under("r/app", old), under("r/.app.kptkit-new", partial)), under("r/app", old)},
		{"killed while writing a new package", under("r/.app.kptkit-new", partial), map[string]string{}},
		{"killed after setting the old aside", merge(under("r/.app.kptkit-old", old), under("r/.app.kptkit-new", new)), under("r/app", new)},
		{"killed after moving the new in", merge(under("r/.app.kptkit-old", old), under("r/app", new)), under("r/app", new)},
		{"an old folder alone goes back", under("r/.app.kptkit-old", old), under("r/app", old)},
		{"a status file half written", map[string]string{".variants.status.yaml.kptkit-new": "x", "variants.status.yaml": "ok\n"}, map[string]string{"variants.status.yaml": "ok\n"}},
	} {
		dir := t.TempDir()
		write(t, dir, c.left)
		out, err := pkgfs.OpenOut(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out.Close()
		if diff := cmp.Diff(c.after, tree(t, dir)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestReadRefusesLinksOut(t *testing.T) {
	t.Parallel()
	dir, victim := t.TempDir(), t.TempDir()
	write(t, victim, map[string]string{"Kptfile": "secret\n"})
	if err := os.Symlink(victim, filepath.Join(dir, "edge01")); err != nil {
		t.Fatal(err)
	}
	out, err := pkgfs.OpenOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if files, err := out.Read("edge01"); err == nil {
		t.Errorf("read through a link out: %v", files)
	}
	if _, err := out.Write("edge01/app", kptpkg.Files{"Kptfile": []byte("x\n")}); err == nil {
		t.Error("wrote through a link out")
	}
	if got := tree(t, victim); !cmp.Equal(got, map[string]string{"Kptfile": "secret\n"}) {
		t.Errorf("the folder a link points at changed: %v", got)
	}
}
