package kptpkg

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
)

// Files are a package's files by slash-separated path relative to its root.
type Files map[string][]byte

// Paths returns the files' paths in the order kpt walks a folder: lexical
// by name within each folder ("a/b" before "a-b").
func (f Files) Paths() []string { return slices.SortedFunc(maps.Keys(f), ComparePaths) }

// Clone returns a copy of the map; the contents are shared (files are never
// changed in place).
func (f Files) Clone() Files { return maps.Clone(f) }

// Equal reports whether two packages hold the same files with the same bytes.
func (f Files) Equal(g Files) bool {
	return maps.EqualFunc(f, g, func(a, b []byte) bool { return string(a) == string(b) })
}

// IsResource reports whether kpt reads the file as resources: Kptfile,
// *.yaml and *.yml.
func IsResource(p string) bool {
	base := path.Base(p)
	return base == kptfile.FileName || strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml")
}

// ErrSymlink is returned for a symbolic link in a package: packages are read
// without following links, so that none can lead out of the package.
var ErrSymlink = errors.New("is a symbolic link: kpt packages are read without following links")

// Read reads every file of the package tree below the root of fsys, as `kpt
// pkg get` copies a package: all files, whatever their kind, subpackages
// included; .git folders are left out, and so are .git files (the link of
// a submodule or a worktree to its repository). A symbolic link is an
// error.
func Read(fsys fs.FS) (Files, error) {
	files := Files{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s %w", p, ErrSymlink)
		case d.Name() == ".git" && d.IsDir():
			return fs.SkipDir
		case d.Name() == ".git":
			return nil // a submodule's or a worktree's link to its repository
		case !d.Type().IsRegular():
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		files[p] = b
		return err
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// Sub returns the files below dir, with paths relative to it.
func (f Files) Sub(dir string) Files {
	if dir == "" || dir == "." {
		return f.Clone()
	}
	out := Files{}
	for p, b := range f {
		if rel, ok := strings.CutPrefix(p, dir+"/"); ok {
			out[rel] = b
		}
	}
	return out
}
