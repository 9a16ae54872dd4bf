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

// A change of every kind: a file replaced (its mode kept), one removed
// with the folder it leaves empty, a new file in a new folder, a removed
// file whose place becomes a folder, a file in the place of an emptied
// folder; and a new package beside it, written whole.
var (
	oldPkg = map[string]string{"Kptfile": "k1\n", "run.sh": "1\n", "gone/x.yaml": "x\n", "b.yaml": "b\n", "c/y.yaml": "y\n"}
	newPkg = map[string]string{"Kptfile": "k2\n", "run.sh": "2\n", "new/z.yaml": "z\n", "b.yaml/w.yaml": "w\n", "c": "c\n"}
)

// layout makes an output folder holding the old package (and things no
// write may touch).
func layout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range oldPkg {
		write(t, dir, map[string]string{"r/app/" + p: c})
	}
	write(t, dir, map[string]string{"r/app/.git/HEAD": "ref\n", "r/app/.backup.yaml.kptkit-new": "mine\n", "r/NOTES.md": "notes\n"})
	if err := os.Chmod(filepath.Join(dir, "r/app/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeBoth writes the new package over the old and a new package beside.
func writeBoth(out *pkgfs.Out) error {
	if _, err := out.Write("r/app", files(oldPkg), files(newPkg)); err != nil {
		return err
	}
	_, err := out.Write("r2/web", nil, files(newPkg))
	return err
}

// hookCalls counts the apply hook's calls during f: the steps of the
// writes, commits included.
func hookCalls(f func()) int {
	n := 0
	pkgfs.SetApplyHook(func(int, string) error { n++; return nil })
	f()
	pkgfs.SetApplyHook(nil)
	return n
}

// TestRecoverEveryStep (issue 20, case 7): a write stopped before any step
// of its apply, or before its commit, as a kill stops it, leaves its
// journal; the next run that opens the folder to write undoes the write,
// and the folder is exactly as before, journal gone.
func TestRecoverEveryStep(t *testing.T) {
	ref := layout(t)
	before := state(t, ref)
	out := open(t, ref)
	first := hookCalls(func() {
		if _, err := out.Write("r/app", files(oldPkg), files(newPkg)); err != nil {
			t.Fatal(err)
		}
	})
	all := first + hookCalls(func() {
		if _, err := out.Write("r2/web", nil, files(newPkg)); err != nil {
			t.Fatal(err)
		}
	})
	out.Close()
	after := state(t, ref)
	if first < 10 {
		t.Fatalf("only %d steps", first)
	}
	for stop := range all {
		dir := layout(t)
		calls := 0
		pkgfs.SetApplyHook(func(int, string) error {
			calls++
			if calls == stop+1 {
				return pkgfs.ErrStop
			}
			return nil
		})
		out := open(t, dir)
		err := writeBoth(out)
		pkgfs.SetApplyHook(nil)
		out.Close()
		if !errors.Is(err, pkgfs.ErrStop) {
			t.Fatalf("step %d: %v", stop, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ".kptkit")); err != nil {
			t.Errorf("step %d: no journal left: %v", stop, err)
		}
		open(t, dir).Close() // the next run
		want := before
		if stop >= first {
			want = onlyFirst(after)
		}
		if diff := cmp.Diff(want, state(t, dir)); diff != "" {
			t.Errorf("stopped before step %d, then recovered (-want +got):\n%s", stop, diff)
		}
	}
}

// onlyFirst is the state with r/app new and r2/web not yet written.
func onlyFirst(after map[string]string) map[string]string {
	out := map[string]string{}
	for p, s := range after {
		if !strings.HasPrefix(p, "r2/") {
			out[p] = s
		}
	}
	return out
}

// TestUndoEveryStep: a write that fails at any step of its apply, or at
// its commit, undoes what it did at once: the folder is as before, and
// nothing is left for the next run.
func TestUndoEveryStep(t *testing.T) {
	n := hookCalls(func() {
		dir := layout(t)
		out := open(t, dir)
		defer out.Close()
		if _, err := out.Write("r/app", files(oldPkg), files(newPkg)); err != nil {
			t.Fatal(err)
		}
	})
	injected := errors.New("injected")
	for step := range n {
		dir := layout(t)
		before := state(t, dir)
		pkgfs.SetApplyHook(func(i int, _ string) error {
			if i == step {
				return injected
			}
			return nil
		})
		out := open(t, dir)
		_, err := out.Write("r/app", files(oldPkg), files(newPkg))
		pkgfs.SetApplyHook(nil)
		out.Close()
		if !errors.Is(err, injected) {
			t.Fatalf("step %d: %v", step, err)
		}
		if diff := cmp.Diff(before, state(t, dir)); diff != "" {
			t.Errorf("failed at step %d, undone (-want +got):\n%s", step, diff)
		}
	}
}

// TestRecoverTouchesOnlyItsJournal (issue 20, case 6): files and folders
// named like an earlier kptkit's scratch, anywhere (.git included), are
// the user's: opening, writing and closing the folder leaves them be.
func TestRecoverTouchesOnlyItsJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := map[string]string{
		"Kptfile": "k\n", "a.yaml": "a\n",
		".backup.yaml.kptkit-new": "backup\n", ".git/refs/.stash.kptkit-new/x": "stash\n",
		"docs/.drafts.kptkit-new/d.md": "draft\n", "docs/.notes.kptkit-old": "notes\n", ".app.kptkit-old/Kptfile": "k\n",
	}
	write(t, dir, user)
	before := state(t, dir)
	for range 2 {
		out := open(t, dir)
		read, err := out.Read(".")
		if err != nil {
			t.Fatal(err)
		}
		changed := read.Clone()
		changed["a.yaml"] = []byte("a2\n")
		if _, err := out.Write(".", read, read); err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write(".", read, changed); err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write(".", changed, read); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
	if diff := cmp.Diff(before, state(t, dir)); diff != "" {
		t.Errorf("(-before +after):\n%s", diff)
	}
}

// TestReadOnly (issue 20, case 8): a folder opened to read is never made,
// written or recovered; what a stopped run left is named, not undone.
// Not parallel: it sets the apply hook, which every write of the process
// calls.
func TestReadOnly(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "out")
	out, err := pkgfs.Open(missing, pkgfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if pkgs, err := out.Packages(); pkgs != nil || err != nil {
		t.Errorf("Packages() = %v, %v", pkgs, err)
	}
	if files, err := out.Read("r/app"); files != nil || err != nil {
		t.Errorf("Read() = %v, %v", files, err)
	}
	if _, err := out.Write("r/app", nil, kptpkg.Files{"Kptfile": nil}); err == nil {
		t.Error("wrote to a folder opened to read")
	}
	out.Close()
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the folder was made: %v", err)
	}
	dir := layout(t)
	pkgfs.SetApplyHook(func(int, string) error { return pkgfs.ErrStop })
	w := open(t, dir)
	_, err = w.Write("r/app", files(oldPkg), files(newPkg))
	pkgfs.SetApplyHook(nil)
	w.Close()
	if !errors.Is(err, pkgfs.ErrStop) {
		t.Fatal(err)
	}
	stopped := state(t, dir)
	out, err = pkgfs.Open(dir, pkgfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Pending(); len(got) != 1 || !strings.HasPrefix(got[0], ".kptkit/tx-") {
		t.Errorf("Pending() = %v", got)
	}
	if _, err := out.WriteFile("x", nil); err == nil {
		t.Error("WriteFile wrote to a folder opened to read")
	}
	out.Close()
	if diff := cmp.Diff(stopped, state(t, dir)); diff != "" {
		t.Errorf("opening to read changed the folder (-before +after):\n%s", diff)
	}
}
