package pkgfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Out is an output folder of packages (<repo>/<package>/), reached only
// through os.Root: nothing outside it can be written or removed, and a
// symbolic link in it cannot lead out. Each package is replaced whole: its
// new files are written to a folder beside it, the old folder is renamed
// aside, the new one renamed in, the old one removed; OpenOut completes or
// undoes whatever an interrupted run left, so every package is the old or
// the new, never a mix.
type Out struct {
	Dir  string
	root *os.Root
}

// Suffixes of the folders a write keeps beside a package while it works.
const (
	newSuffix = ".kptkit-new"
	oldSuffix = ".kptkit-old"
)

// OpenOut opens (creating it if needed) the output folder dir and recovers
// from interrupted writes.
func OpenOut(dir string) (*Out, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	o := &Out{Dir: dir, root: root}
	if err := o.recover(); err != nil {
		root.Close()
		return nil, fmt.Errorf("cannot recover %s from an interrupted run: %w", dir, err)
	}
	return o, nil
}

// Close releases the folder.
func (o *Out) Close() error { return o.root.Close() }

// aside returns the names of the folders a write of p keeps beside it.
func aside(p string) (newDir, oldDir string) {
	d, b := path.Split(p)
	return d + "." + b + newSuffix, d + "." + b + oldSuffix
}

// recover finds the folders interrupted writes left and makes each package
// whole: an old folder set aside whose package is missing means the new
// one was complete (it is renamed in only after it is written) — it is
// moved in; any other leftover is removed.
func (o *Out) recover() error {
	var leftovers []string
	err := fs.WalkDir(o.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if !strings.HasPrefix(name, ".") || !(strings.HasSuffix(name, newSuffix) || strings.HasSuffix(name, oldSuffix)) {
			return nil
		}
		leftovers = append(leftovers, p)
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range leftovers {
		dir, name := path.Split(p)
		if !strings.HasSuffix(name, oldSuffix) {
			continue
		}
		pkg := dir + strings.TrimSuffix(strings.TrimPrefix(name, "."), oldSuffix)
		newDir, _ := aside(pkg)
		if _, err := o.root.Stat(pkg); errors.Is(err, fs.ErrNotExist) {
			if err := o.root.Rename(newDir, pkg); err != nil {
				// No new folder to move in: put the old one back.
				if err := o.root.Rename(p, pkg); err != nil {
					return err
				}
				continue
			}
		}
		if err := o.root.RemoveAll(p); err != nil {
			return err
		}
	}
	for _, p := range leftovers {
		if strings.HasSuffix(p, newSuffix) {
			if err := o.root.RemoveAll(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Packages lists the packages of the folder: each folder holding a Kptfile
// with none above it, by slash path.
func (o *Out) Packages() ([]string, error) {
	var out []string
	err := fs.WalkDir(o.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir() || p == ".":
			return nil
		case strings.HasPrefix(d.Name(), ".") && (strings.HasSuffix(d.Name(), newSuffix) || strings.HasSuffix(d.Name(), oldSuffix)):
			return fs.SkipDir
		}
		if info, err := o.root.Lstat(path.Join(p, kptfile.FileName)); err == nil && info.Mode().IsRegular() {
			out = append(out, p)
			return fs.SkipDir
		}
		return nil
	})
	return out, err
}

// ReadFile reads one file of the folder.
func (o *Out) ReadFile(p string) ([]byte, error) { return o.root.ReadFile(p) }

// Read returns the package at p, or nil when there is none.
func (o *Out) Read(p string) (kptpkg.Files, error) {
	if err := kptpkg.CheckPath("package", p); err != nil {
		return nil, err
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
	return files, nil
}

// Write replaces the package at p with files, all or nothing, and reports
// whether it wrote: files equal to the package's leave it untouched.
func (o *Out) Write(p string, files kptpkg.Files) (bool, error) {
	current, err := o.Read(p)
	if err != nil {
		return false, err
	}
	if current != nil && current.Equal(files) {
		return false, nil
	}
	for _, f := range files.Paths() {
		if err := kptpkg.CheckPath("file", f); err != nil {
			return false, fmt.Errorf("package %s: %w", p, err)
		}
	}
	newDir, oldDir := aside(p)
	if err := o.root.RemoveAll(newDir); err != nil {
		return false, err
	}
	if err := o.root.MkdirAll(newDir, 0o755); err != nil {
		return false, err
	}
	if err := writeAll(o.root, newDir, files); err != nil {
		return false, err
	}
	if current != nil {
		if err := o.root.Rename(p, oldDir); err != nil {
			return false, err
		}
	}
	if err := o.root.Rename(newDir, p); err != nil {
		return false, err
	}
	if current != nil {
		return true, o.root.RemoveAll(oldDir)
	}
	return true, nil
}

// Delete removes the package at p, and the folders above it it leaves
// empty (the output folder itself stays).
func (o *Out) Delete(p string) error {
	if err := kptpkg.CheckPath("package", p); err != nil {
		return err
	}
	if err := o.root.RemoveAll(p); err != nil {
		return err
	}
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if o.root.Remove(d) != nil {
			break // not empty
		}
	}
	return nil
}

// WriteFile replaces one file of the folder (written beside it, then
// renamed), unless it holds those bytes already; it reports whether it
// wrote.
func (o *Out) WriteFile(p string, data []byte) (bool, error) {
	if err := kptpkg.CheckPath("file", p); err != nil {
		return false, err
	}
	if old, err := o.root.ReadFile(p); err == nil && string(old) == string(data) {
		return false, nil
	}
	if err := o.root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return false, err
	}
	tmp := path.Join(path.Dir(p), "."+path.Base(p)+newSuffix)
	if err := o.root.WriteFile(tmp, data, 0o644); err != nil {
		return false, err
	}
	return true, o.root.Rename(tmp, p)
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
