package kptpkg

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// WalkFunc is what Walk calls for each entry of a tree: its slash path in
// the tree, the entry, and the folder holding it as an fs.FS (names are
// relative to it: fs.ReadFile(dir, d.Name()) reads a file). It returns
// fs.SkipDir to leave a folder out (for a file: the rest of its folder),
// as fs.WalkDir's function does; any other error stops the walk.
type WalkFunc func(p string, d fs.DirEntry, dir fs.FS) error

// Walk walks the tree below the root of fsys (the root itself is not
// given to fn), folder by folder in lexical order, a folder's entries
// right after it. It is the one walk of a kpt package's folders: each
// folder is opened through fs.Sub of its parent, so every call to the file
// system names one path segment — an fs.FS whose Sub opens a folder from
// its parent (internal/pkgfs.FS over os.Root, which resolves a name a
// segment at a time) walks a tree with one open per folder and file, where
// fs.WalkDir over os.Root opens every folder above each entry again. A sub
// FS that is an io.Closer is closed once its folder is walked. A folder
// nested deeper than MaxDepth is an error (ErrTooDeep) before it is opened,
// unless fn leaves it out.
func Walk(fsys fs.FS, fn WalkFunc) error { return walk(fsys, "", 0, MaxDepth, fn) }

// walk walks the folder fsys is, at path dir of the tree (depth folders
// down).
func walk(fsys fs.FS, dir string, depth, maxDepth int, fn WalkFunc) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return at(dir, err)
	}
	for _, d := range entries {
		p := d.Name()
		if dir != "" {
			p = dir + "/" + p
		}
		switch err := fn(p, d, fsys); {
		case errors.Is(err, fs.SkipDir) && d.IsDir():
			continue
		case errors.Is(err, fs.SkipDir):
			return nil
		case err != nil:
			return err
		case !d.IsDir():
			continue
		case depth+1 > maxDepth:
			return fmt.Errorf("folder %s is %d levels deep: %w", Abbreviate(p), depth+1, ErrTooDeep)
		}
		if err := walkSub(fsys, d.Name(), p, depth+1, maxDepth, fn); err != nil {
			return err
		}
	}
	return nil
}

// walkSub walks the folder name of fsys (at path p of the tree).
func walkSub(fsys fs.FS, name, p string, depth, maxDepth int, fn WalkFunc) error {
	sub, err := fs.Sub(fsys, name)
	if err != nil {
		return at(p, err)
	}
	if c, ok := sub.(io.Closer); ok {
		defer c.Close()
	}
	return walk(sub, p, depth, maxDepth, fn)
}

// CheckDepth refuses the path of a file that lies deeper than MaxDepth
// folders, as Walk refuses such a folder (and in its words): for a tree
// read otherwise than through Walk (a git tree).
func CheckDepth(p string) error {
	i, depth := 0, 0
	for depth <= MaxDepth {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			return nil
		}
		i, depth = i+j+1, depth+1
	}
	return fmt.Errorf("folder %s is %d levels deep: %w", Abbreviate(p[:i-1]), depth, ErrTooDeep)
}

// Abbreviate shortens a long path for a message: its first two and last
// segments, and how many lie between.
func Abbreviate(p string) string {
	segs := strings.Split(p, "/")
	if len(segs) <= 5 {
		return p
	}
	return fmt.Sprintf("%s/%s/(%d more)/%s", segs[0], segs[1], len(segs)-3, segs[len(segs)-1])
}
