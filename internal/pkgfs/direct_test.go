package pkgfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
)

// TestWriteDirect: a new package whose folder is absent is written by one
// step (the apply hook sees the package's folder), a rename of the topmost
// folder it makes (the repository's folder when that is absent too, else
// its own), and the folder holds exactly
// what a journaled write leaves: the files, folders of mode 0755 (less the
// umask), nothing left in the reserved folder but the lock's holder.
func TestWriteDirect(t *testing.T) {
	pkg := map[string]string{"Kptfile": "k\n", "sub/cm.yaml": "c\n"}
	for _, tc := range []struct {
		name, existing string
		wantSteps      []string
	}{
		{name: "repository folder absent", wantSteps: []string{"r/app"}},
		{name: "repository folder there", existing: "r/NOTES.md", wantSteps: []string{"r/app"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, ref := t.TempDir(), t.TempDir()
			if tc.existing != "" {
				write(t, dir, map[string]string{tc.existing: "n\n"})
				write(t, ref, map[string]string{tc.existing: "n\n"})
			}
			// What a journaled write leaves: the same files, as git-less mkdir makes them.
			write(t, ref, map[string]string{"r/app/Kptfile": "k\n", "r/app/sub/cm.yaml": "c\n"})
			var steps []string
			pkgfs.SetApplyHook(func(_ int, p string) error { steps = append(steps, p); return nil })
			out := open(t, dir)
			_, err := out.Write("r/app", nil, files(pkg))
			out.Close()
			pkgfs.SetApplyHook(nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantSteps, steps); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(withReserved(t, ref, dir), state(t, dir)); diff != "" {
				t.Errorf("folder (-want +got):\n%s", diff)
			}
		})
	}
}

// withReserved is the state of ref with the reserved folder of got (its
// lock's holder) added.
func withReserved(t *testing.T, ref, got string) map[string]string {
	t.Helper()
	want := state(t, ref)
	for p, s := range state(t, got) {
		if filepath.Dir(p) == ".kptkit" || p == ".kptkit" {
			want[p] = s
		}
	}
	return want
}

// TestWriteDirectRaced: a folder that appears where a direct write's
// folder was to go (another write made a shared parent meanwhile) is not
// replaced: the write is planned again and lands beside what appeared.
func TestWriteDirectRaced(t *testing.T) {
	dir := t.TempDir()
	raced := false
	pkgfs.SetApplyHook(func(_ int, p string) error {
		if !raced {
			raced = true
			write(t, dir, map[string]string{"r/web/Kptfile": "other\n"})
		}
		return nil
	})
	out := open(t, dir)
	_, err := out.Write("r/app", nil, files(map[string]string{"Kptfile": "k\n"}))
	out.Close()
	pkgfs.SetApplyHook(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	want := map[string]string{"r/web/Kptfile": "other\n", "r/app/Kptfile": "k\n"}
	for p := range got {
		if filepath.Dir(p) == ".kptkit" {
			delete(got, p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folder (-want +got):\n%s", diff)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".kptkit")); len(entries) > 1 {
		t.Errorf("left in the reserved folder: %v", entries)
	}
}

// TestWriteDirectKeepsAnEmptyFolder: an empty folder that appears where a
// direct write's folder was to go — a user's, of mode 0700 — is not
// replaced (a plain rename would replace an empty folder without a word):
// the package goes inside it, and the folder keeps its mode.
func TestWriteDirectKeepsAnEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	raced := false
	pkgfs.SetApplyHook(func(int, string) error {
		if !raced {
			raced = true
			if err := os.Mkdir(filepath.Join(dir, "r"), 0o700); err != nil {
				t.Error(err)
			}
		}
		return nil
	})
	out := open(t, dir)
	_, err := out.Write("r/app", nil, files(map[string]string{"Kptfile": "k\n"}))
	out.Close()
	pkgfs.SetApplyHook(nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := t.TempDir()
	write(t, ref, map[string]string{"r/app/Kptfile": "k\n"})
	if err := os.Chmod(filepath.Join(ref, "r"), 0o700); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(withReserved(t, ref, dir), state(t, dir)); diff != "" {
		t.Errorf("folder (-want +got):\n%s", diff)
	}
}
