// Package pkgfs is where kpt packages meet the disk: a package folder is
// read through os.Root (nothing outside it can be reached, a symbolic link
// leading out is an error), and written atomically.
package pkgfs

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Read reads the package tree in dir (see kptpkg.Read).
func Read(dir string) (kptpkg.Files, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	files, err := kptpkg.Read(root.FS())
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", dir, err)
	}
	return files, nil
}

// Write makes the package folder dir hold files where it held old (both
// relative to dir): every file that is new or whose bytes changed is
// written to a temporary file next to it and renamed over it (a reader
// never sees half a file), files of old that files lacks are removed, and
// folders are made as needed. Nothing outside dir is touched, nor anything
// in it that neither old nor files names; a path that is not a clean
// relative path is an error, before anything is written.
func Write(dir string, old, files kptpkg.Files) error {
	for _, p := range append(old.Paths(), files.Paths()...) {
		if err := kptpkg.CheckPath("file", p); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, p := range files.Paths() {
		if b, ok := old[p]; ok && string(b) == string(files[p]) {
			continue
		}
		if err := writeFile(root, p, files[p]); err != nil {
			return fmt.Errorf("cannot write %s: %w", filepath.Join(dir, p), err)
		}
	}
	for _, p := range old.Paths() {
		if _, ok := files[p]; ok {
			continue
		}
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot remove %s: %w", filepath.Join(dir, p), err)
		}
	}
	return nil
}

// writeFile writes one file atomically: a temporary file in the same
// folder, renamed over the file (which keeps its mode when it exists).
func writeFile(root *os.Root, p string, b []byte) error {
	if d := path.Dir(p); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	mode := fs.FileMode(0o644)
	if info, err := root.Lstat(p); err == nil {
		if !info.Mode().IsRegular() {
			return fmt.Errorf("not a regular file")
		}
		mode = info.Mode().Perm()
	}
	tmp := path.Join(path.Dir(p), fmt.Sprintf(".%s.kptkit-%d", path.Base(p), rand.Int64()))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, mode)
	}
	if err == nil {
		err = root.Rename(tmp, p)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}
