package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Before writing an object, save looks whether the repository holds it
// already. Most of a draft's objects are new, and go-git's look opens the
// loose object's file for each (one failed open a new object). An
// objectIndex answers "surely absent" with no system call: no loose-object
// folder objects/xx for the hash, and in none of the packs' indexes (read
// once, version 2) nor in the packs kptkit wrote since. Whatever it cannot
// read this way — an alternates file, an incoming quarantine folder, an
// index of another version or too large — makes it answer "may be there",
// and go-git looks as before. An object another process writes meanwhile is
// at worst written once more in kptkit's pack: git takes an object twice.

// maxIndexObjects bounds what an objectIndex reads of a repository's pack
// indexes, all together (20 bytes an object: 20 MiB): a repository whose
// packs hold more is left to go-git, which keeps its own index of them.
const maxIndexObjects = 1 << 20

// objectIndex is what a repository's object folder holds, read once.
type objectIndex struct {
	usable bool
	loose  [256]bool // objects/xx folders
	packs  [][]byte  // each pack index's names, sorted, 20 bytes each
	own    map[plumbing.Hash]struct{}
}

// readObjectIndex reads the object folder objects of a repository.
func readObjectIndex(objects string) *objectIndex {
	x := &objectIndex{own: map[plumbing.Hash]struct{}{}}
	entries, err := os.ReadDir(objects)
	if err != nil {
		return x
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "incoming-") {
			return x
		}
		if b, ok := fanoutOf(name); ok {
			x.loose[b] = true
		}
	}
	if _, err := os.Lstat(filepath.Join(objects, "info", "alternates")); !errors.Is(err, os.ErrNotExist) {
		return x
	}
	packs, err := os.ReadDir(filepath.Join(objects, "pack"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return x
	}
	held := 0 // the names read so far
	for _, e := range packs {
		if !strings.HasSuffix(e.Name(), ".idx") {
			continue
		}
		names, err := readIndexNames(filepath.Join(objects, "pack", e.Name()), maxIndexObjects-held)
		if err != nil {
			return x
		}
		held += len(names) / 20
		x.packs = append(x.packs, names)
	}
	x.usable = true
	return x
}

// fanoutOf reads a loose-object folder's name: two lower-case hex digits.
func fanoutOf(name string) (byte, bool) {
	if len(name) != 2 {
		return 0, false
	}
	var b byte
	for _, c := range []byte(name) {
		switch {
		case c >= '0' && c <= '9':
			b = b<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			b = b<<4 | (c - 'a' + 10)
		default:
			return 0, false
		}
	}
	return b, true
}

// indexMagic starts a pack index of version 2 or later.
var indexMagic = []byte{0xff, 't', 'O', 'c'}

// readIndexNames returns the object names of the pack index at p, at most
// limit of them (indexNames).
func readIndexNames(p string, limit int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return indexNames(f, fi.Size(), limit)
}

// indexNames reads the object names of a version 2 pack index of size
// bytes: its header, its fan-out table (whose last entry is the count) and
// the names; an index of more than limit names, or shorter than its count
// says, is refused before they are read.
func indexNames(r io.Reader, size int64, limit int) ([]byte, error) {
	head := make([]byte, 8+256*4)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	if !bytes.Equal(head[:4], indexMagic) || binary.BigEndian.Uint32(head[4:8]) != 2 {
		return nil, errors.New("not a version 2 pack index")
	}
	n := int64(binary.BigEndian.Uint32(head[len(head)-4:]))
	if n > int64(limit) || n*20 > size-int64(len(head)) {
		return nil, errors.New("a pack index too large to read, or cut short")
	}
	names := make([]byte, n*20)
	if _, err := io.ReadFull(r, names); err != nil {
		return nil, err
	}
	return names, nil
}

// absent reports that the repository surely does not hold h.
func (x *objectIndex) absent(h plumbing.Hash) bool {
	if !x.usable || x.loose[h[0]] {
		return false
	}
	if _, ok := x.own[h]; ok {
		return false
	}
	for _, names := range x.packs {
		if indexHas(names, h) {
			return false
		}
	}
	return true
}

// indexHas looks h up in a pack index's sorted names.
func indexHas(names []byte, h plumbing.Hash) bool {
	lo, hi := 0, len(names)/20
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(names[m*20:m*20+20], h[:]); {
		case c == 0:
			return true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}

// wrote records the objects of a pack kptkit wrote.
func (x *objectIndex) wrote(hs []plumbing.Hash) {
	for _, h := range hs {
		x.own[h] = struct{}{}
	}
}
