package pkgfs

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Read reads the package tree in dir (see kptpkg.Read), each folder opened
// from its parent's (FS).
func Read(dir string) (kptpkg.Files, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	files, err := kptpkg.Read(FS(root))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", dir, err)
	}
	return files, nil
}

// FS returns the folder root as an fs.FS for kptpkg.Read whose Sub opens a
// folder from root itself (os.Root.OpenRoot), not from the tree's top: a
// Root resolves a name segment by segment, each segment one openat, so a
// tree read through root.FS() costs one open per folder above every file
// and folder (quadratic in depth), and through FS one. The FS Sub returns
// is an io.Closer, which kptpkg.Read closes; root stays the caller's.
func FS(root *os.Root) fs.FS { return rootFS{FS: root.FS(), root: root} }

// rootFS is a Root's fs.FS with Sub.
type rootFS struct {
	fs.FS
	root *os.Root
}

func (f rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.FS, name) }

func (f rootFS) ReadFile(name string) ([]byte, error) { return f.root.ReadFile(name) }

func (f rootFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.FS, name) }

// Sub opens the folder dir of the root as a root of its own.
func (f rootFS) Sub(dir string) (fs.FS, error) {
	sub, err := f.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return subFS{FS(sub).(rootFS)}, nil
}

// subFS is a folder rootFS opened, closed with it.
type subFS struct{ rootFS }

func (f subFS) Close() error { return f.root.Close() }

var (
	_ fs.SubFS      = rootFS{}
	_ fs.ReadDirFS  = rootFS{}
	_ fs.ReadFileFS = rootFS{}
)
