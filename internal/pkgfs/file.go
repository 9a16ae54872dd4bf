package pkgfs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces the one file name that the user named as output (a
// status file, an index, results.yaml: outside any folder kptkit locks),
// unless it holds those bytes already; it reports whether it wrote. The
// bytes go beside it first, under a name of their own, then are renamed
// in: a reader sees the old file or the new, never part of one, and a
// failed write leaves the old one. A replaced file keeps its mode; a
// symbolic link is followed and its target replaced. Where something
// other than a file is (a device, a pipe: /dev/stdout), the bytes are
// written to it, as a stream has no old content to keep; a folder there
// is an error. Errors name the file as given.
func WriteFile(name string, data []byte) (bool, error) {
	wrote, err := writeFile(name, data)
	if err != nil {
		return false, fmt.Errorf("cannot write %s: %w", name, unwrapPath(err))
	}
	return wrote, nil
}

func writeFile(name string, data []byte) (bool, error) {
	if link, err := os.Lstat(name); err == nil && link.Mode()&fs.ModeSymlink != 0 {
		if name, err = filepath.EvalSymlinks(name); err != nil {
			return false, err // a link to nothing
		}
	}
	mode := 0o644 &^ umask
	info, err := os.Stat(name)
	switch {
	case err == nil && info.IsDir():
		return false, fmt.Errorf("it is a folder")
	case err == nil && !info.Mode().IsRegular():
		return true, os.WriteFile(name, data, mode)
	case err == nil:
		if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
			return false, nil
		}
		mode = info.Mode().Perm()
	case !os.IsNotExist(err):
		return false, err
	}
	return true, replaceFile(name, data, mode)
}

// replaceFile writes data beside name, then renames it into name's place.
func replaceFile(name string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".kptkit-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
