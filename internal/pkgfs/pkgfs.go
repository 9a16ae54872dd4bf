// Package pkgfs is where kpt packages meet the disk: a package folder is
// read through os.Root (nothing outside it can be reached, a symbolic link
// leading out is an error), and written all or nothing, under a lock.
package pkgfs

import (
	"fmt"
	"os"

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
