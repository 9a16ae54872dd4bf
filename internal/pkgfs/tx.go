package pkgfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// A write (tx) changes one folder of a root, all or nothing: it puts files
// (new ones, or in the place of files it read) and removes files it read;
// everything else in the folder stays as it is. It goes in five steps:
//
//   - plan: every path is checked against the tree the write leaves and
//     against the disk, and the steps below worked out; nothing is written;
//   - stage: the new contents are written into the write's own folder,
//     .kptkit/tx-N (a failure here changes nothing);
//   - journal: .kptkit/tx-N/journal names every step of the apply, in order;
//   - apply: each file to replace or remove is moved into the write's
//     folder, the folders the removals leave empty are removed, the folders
//     new files need made, and the staged files moved into their places;
//     a failure undoes what was done, in reverse;
//   - commit: the journal is removed, then the write's folder.
//
// A run stopped before the commit leaves the journal: the next run that
// writes the folder undoes exactly the steps it names (recoverWrites), and
// nothing else.
type tx struct {
	root   *os.Root
	dir    string // the write's folder, relative to the root
	ops    []op
	stage  []staged
	tree   kptpkg.Files // a whole new folder, staged as "tree"; nil for none
	made   map[string]bool
	mkdirs int // folders made by this write (undone in process)
	// direct is the folder a whole new folder's write renames its own
	// folder to, when it is written by one rename (direct.go); "" for a
	// journaled write.
	direct string
	base   string // the folder written, for a direct write
}

// op is one step of a write's apply, on a path relative to the root.
type op struct {
	kind opKind
	path string
	slot string      // the file's name in the write's folder (stash, put)
	mode fs.FileMode // a removed folder's mode, to make it again (rmdir)
}

type opKind byte

const (
	opStash opKind = 's' // a file to replace or remove moves into the write's folder
	opRmdir opKind = 'r' // a folder the removals leave empty is removed
	opMkdir opKind = 'm' // a folder a new file needs is made
	opPut   opKind = 'p' // a staged file (or folder) moves into its place
)

// staged is a new file's content, staged in slot with mode.
type staged struct {
	slot  string
	name  string // the file's path, for messages
	data  []byte
	mode  fs.FileMode
	chmod bool // the file replaces one: it takes that one's mode exactly
}

// umask is the process's file mode creation mask (read once, at start,
// before any goroutine of kptkit's creates a file).
var umask = func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}()

// treeSlot is the slot of a whole new folder.
const treeSlot = "tree"

// planWrite plans making the folder base of root (relative to it; "." for
// the root) hold files where it held old (paths relative to base): files
// whose bytes differ from old's are put, files of old that files lacks are
// removed. It returns nil when there is nothing to do. A changed path that
// is not a clean relative path, a reserved name among the files put, two files of
// the tree the write leaves that clash (b.yaml and b.yaml/x.yaml), and
// anything on the disk in the way that old does not name are errors.
func planWrite(root *os.Root, base string, old, files kptpkg.Files) (*tx, error) {
	puts, removes, err := changes(old, files)
	if err != nil || len(puts)+len(removes) == 0 {
		return nil, err
	}
	for _, p := range puts {
		for d := parentOf(p); d != ""; d = parentOf(d) {
			if _, ok := files[d]; ok {
				return nil, fmt.Errorf("cannot write %s: %s is a file of the package too", p, d)
			}
		}
	}
	pl := newPlanner(root, base)
	if len(removes) == 0 && old == nil && base != "." {
		if k, _, err := pl.lstat(base); err != nil {
			return nil, err
		} else if k == absent {
			return pl.wholeFolder(files)
		}
	}
	return pl.files(old, files, puts, removes, false)
}

// changes returns the files a write puts (new, or with other bytes than
// old's) and removes (old's that files lacks), each checked: a clean
// relative path, and no reserved name among those put. Files neither
// changes is never looks at.
func changes(old, files kptpkg.Files) (puts, removes []string, err error) {
	for _, p := range files.Paths() {
		if b, ok := old[p]; !ok || string(b) != string(files[p]) {
			if err := kptpkg.CheckPath("file", p); err != nil {
				return nil, nil, err
			}
			if err := kptpkg.CheckReserved("file", p); err != nil {
				return nil, nil, err
			}
			puts = append(puts, p)
		}
	}
	for _, p := range old.Paths() {
		if _, ok := files[p]; !ok {
			if err := kptpkg.CheckPath("file", p); err != nil {
				return nil, nil, err
			}
			removes = append(removes, p)
		}
	}
	return puts, removes, nil
}

// planDelete plans removing the files of the folder base (relative to
// it), then every folder that leaves empty, base and those above it
// included (the root stays).
func planDelete(root *os.Root, base string, files kptpkg.Files) (*tx, error) {
	_, removes, err := changes(files, nil)
	if err != nil {
		return nil, err
	}
	return newPlanner(root, base).files(files, nil, nil, removes, true)
}

// planner works out a write's steps, looking at the disk (each path once).
type planner struct {
	root    *os.Root
	base    string
	t       *tx
	seen    map[string]entry
	removed map[string]bool // files moved out
	gone    map[string]bool // folders removed
	needed  map[string]bool // folders the files put need
}

type entry struct {
	kind entryKind
	mode fs.FileMode
}

type entryKind int

const (
	absent entryKind = iota
	isFile
	isDir
	isOther // a symbolic link, a device...
)

func newPlanner(root *os.Root, base string) *planner {
	return &planner{root: root, base: base, t: &tx{root: root, made: map[string]bool{}},
		seen: map[string]entry{}, removed: map[string]bool{}, gone: map[string]bool{}, needed: map[string]bool{}}
}

// at returns a path of the folder relative to the root.
func (pl *planner) at(p string) string {
	if pl.base == "." {
		return p
	}
	return pl.base + "/" + p
}

// lstat says what is at p (relative to the root), without following links.
func (pl *planner) lstat(p string) (entryKind, fs.FileMode, error) {
	if e, ok := pl.seen[p]; ok {
		return e.kind, e.mode, nil
	}
	e := entry{}
	info, err := pl.root.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		e.kind = absent
	case err != nil:
		return 0, 0, err
	case info.Mode().IsRegular():
		e = entry{isFile, info.Mode().Perm()}
	case info.IsDir():
		e = entry{isDir, info.Mode().Perm()}
	default:
		e = entry{isOther, info.Mode()}
	}
	pl.seen[p] = e
	return e.kind, e.mode, nil
}

// wholeFolder plans a new folder at base, staged whole and moved in at
// once.
func (pl *planner) wholeFolder(files kptpkg.Files) (*tx, error) {
	if err := pl.parents(pl.base, pl.base); err != nil {
		return nil, err
	}
	pl.t.tree = files
	pl.t.ops = append(pl.mkdirs(), op{kind: opPut, path: pl.base, slot: treeSlot})
	if !noDirect.Load() {
		pl.t.planDirect(pl.base)
	}
	return pl.t, nil
}

// files plans putting puts (of files) and removing removes (of old); with
// upward, the folders the removals empty above base go too.
func (pl *planner) files(old, files kptpkg.Files, puts, removes []string, upward bool) (*tx, error) {
	stash, err := pl.removals(removes)
	if err != nil {
		return nil, err
	}
	var put []op
	for _, p := range puts {
		s, replaced, err := pl.put(p, old, files[p])
		if err != nil {
			return nil, err
		}
		if replaced {
			stash = append(stash, op{kind: opStash, path: pl.at(p), slot: fmt.Sprintf("o%d", len(stash))})
		}
		pl.t.stage = append(pl.t.stage, s)
		put = append(put, op{kind: opPut, path: pl.at(p), slot: s.slot})
	}
	rmdirs, err := pl.emptied(removes, upward)
	if err != nil {
		return nil, err
	}
	pl.t.ops = slices.Concat(stash, rmdirs, pl.mkdirs(), put)
	if len(pl.t.ops) == 0 {
		return nil, nil
	}
	return pl.t, nil
}

// removals are the steps moving the files to remove out of their places
// (those already gone need none).
func (pl *planner) removals(removes []string) ([]op, error) {
	var stash []op
	for _, p := range removes {
		at := pl.at(p)
		switch k, _, err := pl.lstat(at); {
		case err != nil:
			return nil, err
		case k == absent:
			continue
		case k != isFile:
			return nil, fmt.Errorf("cannot remove %s: it is not a file", p)
		}
		pl.removed[at] = true
		stash = append(stash, op{kind: opStash, path: at, slot: fmt.Sprintf("o%d", len(stash))})
	}
	return stash, nil
}

// put plans one file to put: its parents checked, what is in its place
// checked (a file old names is replaced, and its mode kept; a folder only
// the write empties goes).
func (pl *planner) put(p string, old kptpkg.Files, data []byte) (s staged, replaced bool, err error) {
	at := pl.at(p)
	if err := pl.parents(at, p); err != nil {
		return s, false, err
	}
	k, mode, err := pl.lstat(at)
	if err != nil {
		return s, false, err
	}
	s = staged{slot: fmt.Sprintf("n%d", len(pl.t.stage)), name: p, data: data, mode: 0o644}
	switch _, read := old[p]; {
	case k == isFile && !read:
		return s, false, fmt.Errorf("cannot write %s: a file kptkit did not read is in its place", p)
	case k == isFile:
		// Created with the mode it replaces; changed after only where the
		// umask takes bits off.
		s.mode, s.chmod = mode, mode&^umask != mode
		return s, true, nil
	case k == isDir && !pl.empties(at, true):
		return s, false, fmt.Errorf("cannot write %s: a folder is in its place", p)
	case k == isOther:
		return s, false, fmt.Errorf("cannot write %s: something other than a file is in its place", p)
	}
	return s, false, nil
}

// parents checks the folders above at (relative to the root; name is the
// path in messages): each is a folder, or nothing (it is made), or a file
// the write removes (it becomes a folder).
func (pl *planner) parents(at, name string) error {
	var dirs []string
	for d := parentOf(at); d != ""; d = parentOf(d) {
		dirs = append(dirs, d)
	}
	for _, d := range slices.Backward(dirs) {
		pl.needed[d] = true
		if pl.t.made[d] {
			continue
		}
		k, _, err := pl.lstat(d)
		switch {
		case err != nil:
			return err
		case k == isDir:
			continue
		case k == absent || (k == isFile && pl.removed[d]):
			pl.t.made[d] = true
		case k == isFile:
			return fmt.Errorf("cannot write %s: %s is a file", name, d)
		default:
			return fmt.Errorf("cannot write %s: %s is not a folder", name, d)
		}
	}
	return nil
}

// mkdirs are the steps making the folders the write needs, parents first.
func (pl *planner) mkdirs() []op {
	dirs := make([]string, 0, len(pl.t.made))
	for d := range pl.t.made {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(a, b string) int { return kptpkg.ComparePaths(a, b) })
	ops := make([]op, len(dirs))
	for i, d := range dirs {
		ops[i] = op{kind: opMkdir, path: d}
	}
	return ops
}

// emptied returns the steps removing the folders the removals leave empty
// (those a put needs stay), deepest first: the folders holding a removed
// file, up to base (beyond it with upward; never the root), and any folder
// a file is put in the place of.
func (pl *planner) emptied(removes []string, upward bool) ([]op, error) {
	candidates := map[string]bool{}
	for _, p := range removes {
		at := pl.at(p)
		if !pl.removed[at] {
			continue
		}
		for d := parentOf(at); d != ""; d = parentOf(d) {
			if !upward && !strings.HasPrefix(d, pl.base+"/") {
				break
			}
			candidates[d] = true
		}
	}
	if upward && pl.base != "." {
		candidates[pl.base] = true
	}
	dirs := make([]string, 0, len(candidates))
	for d := range candidates {
		dirs = append(dirs, d)
	}
	// Deepest first: a folder is empty once those below it are gone.
	slices.SortFunc(dirs, func(a, b string) int { return -kptpkg.ComparePaths(a, b) })
	for _, d := range dirs {
		if k, _, err := pl.lstat(d); err != nil {
			return nil, err
		} else if k == isDir && !pl.needed[d] {
			pl.empties(d, false)
		}
	}
	var ops []op
	gone := make([]string, 0, len(pl.gone))
	for d := range pl.gone {
		gone = append(gone, d)
	}
	slices.SortFunc(gone, func(a, b string) int { return -kptpkg.ComparePaths(a, b) })
	for _, d := range gone {
		ops = append(ops, op{kind: opRmdir, path: d, mode: pl.seen[d].mode})
	}
	return ops, nil
}

// empties reports whether the folder d holds nothing but files the write
// removes and folders that go (with recurse, it decides for the folders
// below too), and then marks it gone.
func (pl *planner) empties(d string, recurse bool) bool {
	f, err := pl.root.Open(d)
	if err != nil {
		return false
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return false
	}
	for _, e := range entries {
		p := d + "/" + e.Name()
		switch {
		case e.Type().IsRegular() && pl.removed[p]:
		case e.IsDir() && pl.gone[p]:
		case e.IsDir() && recurse && !pl.needed[p]:
			if _, _, err := pl.lstat(p); err != nil || !pl.empties(p, true) {
				return false
			}
		default:
			return false
		}
	}
	pl.gone[d] = true
	return true
}

// parentOf returns the folder above a slash path, "" at the top.
func parentOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}
