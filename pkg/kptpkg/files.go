package kptpkg

import (
	"cmp"
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

// MaxDepth is how many folders deep a package's files may lie: a folder
// nested deeper is refused (ErrTooDeep) before it is opened. kpt sets no
// bound; 256 levels is far beyond any real package, and keeps what a
// hostile tree costs (paths, opens) small.
const MaxDepth = 256

// ErrTooDeep is returned for a folder nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("kptkit reads a package at most %d folders deep", MaxDepth)

// MaxSteps is how many functions a Kptfile's pipeline may hold (mutators
// and validators together): a Kptfile with more is refused before any
// runs. kpt sets no bound; each step is given every item of its package,
// the Kptfile among them, so a pipeline's cost grows with its length times
// the Kptfile's, and 1,000 steps is far beyond any real package.
const MaxSteps = 1000

// TooManySteps says why a pipeline of n functions (more than MaxSteps) is
// refused: "1001 functions, more than the 1000 ...".
func TooManySteps(n int) string {
	return fmt.Sprintf("%d functions, more than the %d kptkit runs from one Kptfile", n, MaxSteps)
}

// Read reads every file of the package tree below the root of fsys, as `kpt
// pkg get` copies a package: all files, whatever their kind, subpackages
// included; .git folders are left out, and so are .git files (the link of
// a submodule or a worktree to its repository). A symbolic link is an
// error, and so is a folder nested deeper than MaxDepth. The tree is
// walked with Walk: an fs.FS whose Sub opens a folder from its parent
// (internal/pkgfs's) reads it with one open per folder and file, however
// deep.
func Read(fsys fs.FS) (Files, error) { return read(fsys, MaxDepth) }

func read(fsys fs.FS, maxDepth int) (Files, error) {
	files := Files{}
	err := walk(fsys, "", 0, maxDepth, func(p string, d fs.DirEntry, dir fs.FS) error {
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s %w", p, ErrSymlink)
		case d.Name() == ".git" && d.IsDir():
			return fs.SkipDir
		case d.Name() == ".git" || !d.Type().IsRegular():
			return nil // a submodule's or a worktree's link to its repository, or no file
		}
		b, err := fs.ReadFile(dir, d.Name())
		if err != nil {
			return at(p, err)
		}
		files[p] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// at names the path of the tree in a file system's error, which names the
// path relative to the folder it was asked of.
func at(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: cmp.Or(p, "."), Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", cmp.Or(p, "."), err)
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
