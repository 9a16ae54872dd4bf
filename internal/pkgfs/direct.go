package pkgfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// A new package whose folder is absent — a fleet's first render writes
// thousands — is written by one rename: its files are staged in the
// write's folder laid out as the topmost absent folder above it (or its
// own), and that folder is renamed into place with RENAME_NOREPLACE. No
// journal is needed: until the rename nothing is in place, and the next
// run removes a staged folder with no journal; after it the write is
// whole. It makes two folders and two files fewer than a journaled write.
// A folder that appears in its place meanwhile (another write of the run
// made a shared parent) fails the rename, and the write is planned again;
// a file system without RENAME_NOREPLACE has every write journaled.

// maxDirect bounds the tries of a write raced again and again; the last
// is journaled.
const maxDirect = 4

// errRaced: the folder a direct write was to become appeared or its parent
// went meanwhile; the write is planned again.
var errRaced = errors.New("the folder changed while it was written")

// noDirect is set once the file system refuses RENAME_NOREPLACE.
var noDirect atomic.Bool

// planDirect makes the whole-folder write t direct: its tree becomes the
// topmost folder it makes (made: the absent folders above base), or base.
func (t *tx) planDirect(base string) {
	t.direct = base
	for d := range t.made {
		if len(d) < len(t.direct) {
			t.direct = d
		}
	}
	t.base = base
}

// directTree is the tree laid out as the folder t.direct.
func (t *tx) directTree() kptpkg.Files {
	if t.direct == t.base {
		return t.tree
	}
	rel := strings.TrimPrefix(t.base, t.direct+"/")
	tree := make(kptpkg.Files, len(t.tree))
	for p, b := range t.tree {
		tree[rel+"/"+p] = b
	}
	return tree
}

// runDirect stages the write's tree as its folder dir (relative to the
// root, made here) and renames dir to t.direct; on any failure dir is
// removed (but for ErrStop, as a kill would leave it).
func (t *tx) runDirect(dir string) error {
	t.dir = dir
	if err := t.root.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if err := writeAll(t.root, dir, t.directTree()); err != nil {
		_ = t.root.RemoveAll(dir)
		return fmt.Errorf("cannot write the package: %w", unwrapPath(err))
	}
	var err error
	if h := applyHook.Load(); h != nil {
		err = (*h)(0, t.base) // the package the one step puts
	}
	if err == nil {
		err = renameNoReplace(t.root, dir, t.direct)
	}
	if err != nil && !errors.Is(err, ErrStop) {
		_ = t.root.RemoveAll(dir)
	}
	return err
}

// renameNoReplace renames from to to (both relative to the root, their
// folders opened through it) unless something is at to: errRaced then, and
// when to's folder is gone.
func renameNoReplace(root *os.Root, from, to string) error {
	src, err := root.Open(path.Dir(from))
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := root.Open(path.Dir(to))
	if errors.Is(err, fs.ErrNotExist) {
		return errRaced
	}
	if err != nil {
		return err
	}
	defer dst.Close()
	err = unix.Renameat2(int(src.Fd()), path.Base(from), int(dst.Fd()), path.Base(to), unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EEXIST), errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.ENOENT):
		return errRaced
	case errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.EOPNOTSUPP):
		noDirect.Store(true)
		return errRaced
	}
	return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
}
