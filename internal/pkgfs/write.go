package pkgfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Out is a folder kptkit writes — an output folder of packages
// (<repo>/<package>/), or one package rendered in place — reached only
// through os.Root: nothing outside it can be written or removed, and a
// symbolic link in it cannot lead out. A writer holds the folder's lock
// (LockDir) from Open to Close; each package write is all or nothing and
// touches only the files it names (see tx), and Open undoes what a stopped
// run's journals name, so every package is the old or the new, never a mix.
type Out struct {
	Dir      string
	root     *os.Root // nil: a folder opened to read that does not exist
	lock     *Lock
	readOnly bool
	seq      atomic.Int64
	pending  []string
}

// Options say how a folder is opened.
type Options struct {
	// ReadOnly opens it to read only (--check, --dry-run): a shared lock,
	// nothing created, moved or removed — a missing folder reads as empty,
	// and a stopped run's leftovers are left for Pending to name.
	ReadOnly bool
	// Wait is how long to wait for another run's lock (0: fail at once).
	Wait time.Duration
}

// OpenOut opens the folder dir to write, failing at once while another run
// holds it (Open).
func OpenOut(dir string) (*Out, error) { return Open(dir, Options{}) }

// Open opens the folder dir. To write, it makes the folder if needed,
// takes its lock (exclusive) and undoes the writes a stopped run left
// unfinished; to read, it takes the lock shared.
func Open(dir string, opts Options) (*Out, error) {
	o := &Out{Dir: dir, readOnly: opts.ReadOnly}
	if opts.ReadOnly {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return o, nil
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := LockDir(dir, !opts.ReadOnly, opts.Wait)
	if err != nil {
		return nil, err
	}
	if o.root, err = os.OpenRoot(dir); err != nil {
		lock.Unlock()
		return nil, err
	}
	o.lock = lock
	if opts.ReadOnly {
		o.pending = o.unfinished()
	} else if err := o.recover(); err != nil {
		o.Close()
		return nil, fmt.Errorf("cannot recover %s from an interrupted run: %w", dir, err)
	}
	return o, nil
}

// Close releases the folder and its lock.
func (o *Out) Close() error {
	if o.root == nil {
		return nil
	}
	err := o.root.Close()
	if uerr := o.lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}

// Pending names the writes a stopped run left unfinished in a folder
// opened to read (the next run that writes undoes them).
func (o *Out) Pending() []string { return o.pending }

// unfinished lists the writes whose journal is still there.
func (o *Out) unfinished() []string {
	entries, _ := fs.ReadDir(o.root.FS(), kptpkg.ReservedName)
	var out []string
	for _, e := range entries {
		p := kptpkg.ReservedName + "/" + e.Name()
		if _, err := o.root.Lstat(p + "/" + journalName); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// recover undoes every write a stopped run left a journal of, and removes
// what else such a run left in the reserved folder (staged files of writes
// that never journaled, committed writes not cleaned up); the lock holder
// file is the caller's.
func (o *Out) recover() error {
	entries, err := fs.ReadDir(o.root.FS(), kptpkg.ReservedName)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := kptpkg.ReservedName + "/" + e.Name()
		switch {
		case p == holderFile:
			continue
		case e.IsDir():
			if _, err := o.root.Lstat(p + "/" + journalName); err == nil {
				if err := recoverWrite(o.root, p); err != nil {
					return err
				}
			}
		}
		if err := o.root.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}

// scratch returns a new name in the reserved folder.
func (o *Out) scratch(prefix string) string {
	return kptpkg.ReservedName + "/" + prefix + strconv.FormatInt(o.seq.Add(1), 10)
}

func (o *Out) writable() error {
	if o.readOnly || o.root == nil {
		return fmt.Errorf("%s is open to read only", o.Dir)
	}
	return nil
}

// checkPackage checks a package's path ("." is the folder itself).
func checkPackage(p string) error {
	if p == "." {
		return nil
	}
	if err := kptpkg.CheckPath("package", p); err != nil {
		return err
	}
	return kptpkg.CheckReserved("package", p)
}

// Packages lists the packages of the folder: each folder holding a Kptfile
// (a regular file) with none above it, by slash path. The reserved folder
// and .git folders are not looked in. The folder is walked with
// kptpkg.Walk over FS, each folder opened from its parent and its Kptfile
// looked up from there (linear in the folders, whatever their depth; a
// folder deeper than kptpkg.MaxDepth is an error).
func (o *Out) Packages() ([]string, error) {
	if o.root == nil {
		return nil, nil
	}
	var out []string
	err := kptpkg.Walk(FS(o.root), func(p string, d fs.DirEntry, dir fs.FS) error {
		switch {
		case !d.IsDir():
			return nil
		case p == kptpkg.ReservedName || strings.EqualFold(d.Name(), ".git"):
			return fs.SkipDir
		}
		var parent *os.Root // the folder holding d, as FS opened it
		switch f := dir.(type) {
		case rootFS:
			parent = f.root
		case subFS:
			parent = f.root
		}
		if info, err := parent.Lstat(path.Join(d.Name(), kptfile.FileName)); err == nil && info.Mode().IsRegular() {
			out = append(out, p)
			return fs.SkipDir
		}
		return nil
	})
	return out, err
}

// ReadFile reads one file of the folder.
func (o *Out) ReadFile(p string) ([]byte, error) {
	if o.root == nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return o.root.ReadFile(p)
}

// Read returns the files of the package at p ("." for the folder itself;
// kptpkg.Read: .git folders left out, the reserved folder too), or nil
// when there is none.
func (o *Out) Read(p string) (kptpkg.Files, error) {
	if err := checkPackage(p); err != nil {
		return nil, err
	}
	if o.root == nil {
		return nil, nil
	}
	sub, err := o.root.OpenRoot(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	files, err := kptpkg.Read(sub.FS())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for f := range files {
		if strings.HasPrefix(f, kptpkg.ReservedName+"/") {
			delete(files, f)
		}
	}
	return files, nil
}

// Write makes the package at p ("." for the folder itself) hold files
// where it held old (what Read gave; nil for no package), all or nothing:
// only files whose bytes differ from old's are written (a replaced file
// keeps its mode), only files of old that files lacks are removed, with the
// folders that leaves empty; everything else in the package's folder stays
// (a .git folder, an empty folder, a file kptkit did not read). It reports
// whether it changed anything. Errors name files relative to the package.
func (o *Out) Write(p string, old, files kptpkg.Files) (bool, error) {
	if err := o.writable(); err != nil {
		return false, err
	}
	if err := checkPackage(p); err != nil {
		return false, err
	}
	// A direct write raced by another (direct.go) is planned again: the
	// folders absent above p are fewer each time.
	for try := 1; ; try++ {
		t, err := planWrite(o.root, p, old, files)
		if err != nil || t == nil {
			return false, err
		}
		if try == maxDirect {
			t.direct = ""
		}
		if err = t.run(o.scratch("tx-")); !errors.Is(err, errRaced) {
			return true, err
		}
	}
}

// Delete removes the files of the package at p (relative to it, as Read
// gave them), then the folders that leaves empty, the package's own and
// those above it included (the output folder itself stays), all or
// nothing. Anything else in the package's folder stays, and so does the
// folder then.
func (o *Out) Delete(p string, files kptpkg.Files) error {
	if err := o.writable(); err != nil {
		return err
	}
	if err := checkPackage(p); err != nil {
		return err
	}
	if p == "." {
		return errors.New("cannot delete the folder itself")
	}
	t, err := planDelete(o.root, p, files)
	if err != nil || t == nil {
		return err
	}
	return t.run(o.scratch("tx-"))
}

// WriteFile replaces one file of the folder (written in the reserved folder
// first, then renamed into its place, with the mode of the file it
// replaces), unless it holds those bytes already; it reports whether it
// wrote.
func (o *Out) WriteFile(p string, data []byte) (bool, error) {
	if err := o.writable(); err != nil {
		return false, err
	}
	if err := kptpkg.CheckPath("file", p); err != nil {
		return false, err
	}
	if err := kptpkg.CheckReserved("file", p); err != nil {
		return false, err
	}
	s := staged{mode: 0o644}
	if info, err := o.root.Lstat(p); err == nil {
		if !info.Mode().IsRegular() {
			return false, fmt.Errorf("cannot write %s: something other than a file is in its place", p)
		}
		if old, err := o.root.ReadFile(p); err == nil && string(old) == string(data) {
			return false, nil
		}
		s.mode = info.Mode().Perm()
		s.chmod = s.mode&^umask != s.mode
	}
	if d := path.Dir(p); d != "." {
		if err := o.root.MkdirAll(d, 0o755); err != nil {
			return false, fmt.Errorf("cannot write %s: %w", p, err)
		}
	}
	t := &tx{root: o.root, dir: kptpkg.ReservedName}
	s.data, s.slot = data, strings.TrimPrefix(o.scratch("file-"), kptpkg.ReservedName+"/")
	err := t.stageFile(s)
	if err == nil {
		t.ops = []op{{kind: opPut, path: p}}
		err = t.hook(0)
	}
	if err == nil {
		err = o.root.Rename(t.slotPath(op{slot: s.slot}), p)
	}
	if err != nil {
		_ = o.root.Remove(t.slotPath(op{slot: s.slot}))
		return false, fmt.Errorf("cannot write %s: %w", p, unwrapPath(err))
	}
	return true, nil
}

// writeAll writes files into the folder dir of root (a root of its own, so
// that each file is reached from it), making the folders they need.
func writeAll(root *os.Root, dir string, files kptpkg.Files) error {
	sub, err := root.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer sub.Close()
	made := map[string]bool{".": true}
	for _, f := range files.Paths() {
		if d := path.Dir(f); !made[d] {
			if err := sub.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
		if err := sub.WriteFile(f, files[f], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Write makes the package folder dir (made if needed) hold files where it
// held old (both relative to dir), as Out.Write does, holding dir's lock
// meanwhile (failing at once if another run holds it).
func Write(dir string, old, files kptpkg.Files) error {
	if _, _, err := changes(old, files); err != nil {
		return err
	}
	o, err := OpenOut(dir)
	if err != nil {
		return err
	}
	_, err = o.Write(".", old, files)
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	return err
}
