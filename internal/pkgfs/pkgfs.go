// Package pkgfs is where kpt packages meet the disk: a package folder is
// read through os.Root (nothing outside it can be reached, a symbolic link
// leading out is an error), and written atomically.
package pkgfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Write makes the package folder dir hold files where it held old (both
// relative to dir), in place: every file that is new or whose bytes changed
// is replaced atomically (Out.WriteFile), files of old that files lacks
// are removed, folders are made as needed. Nothing outside dir is touched,
// nor anything in it that neither old nor files names (a .git folder, say);
// a path that is not a clean relative path is an error, before anything is
// written.
func Write(dir string, old, files kptpkg.Files) error {
	for _, p := range append(old.Paths(), files.Paths()...) {
		if err := kptpkg.CheckPath("file", p); err != nil {
			return err
		}
	}
	o, err := OpenOut(dir)
	if err != nil {
		return err
	}
	defer o.Close()
	for _, p := range files.Paths() {
		if b, ok := old[p]; ok && string(b) == string(files[p]) {
			continue
		}
		if _, err := o.WriteFile(p, files[p]); err != nil {
			return fmt.Errorf("cannot write %s: %w", filepath.Join(dir, p), err)
		}
	}
	for _, p := range old.Paths() {
		if _, ok := files[p]; ok {
			continue
		}
		if err := o.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot remove %s: %w", filepath.Join(dir, p), err)
		}
	}
	return nil
}
