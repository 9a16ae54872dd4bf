package gitrepo

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
)

// A change's new objects (a variant's draft: two commits, their trees and
// blobs) are written as one pack file rather than one loose file each:
// many fewer files, for a run that writes into many repositories. Objects
// are written before any ref moves, as before.

// batch is the new objects of a change, in memory until flushed into the
// repository's storage as one pack.
type batch struct {
	dir   string // objects/pack, when kptkit writes the pack (packwrite.go)
	to    storer.PackfileWriter
	objs  *memory.Storage
	order []plumbing.Hash
	// reindex has go-git's storage see the pack kptkit wrote.
	reindex interface{ Reindex() }
	// index is the repository's object index (absent.go), when kptkit
	// writes the pack.
	index *objectIndex
}

// newBatch returns a batch for the repository's storage, or nil when it
// cannot take a pack (objects are then written one by one).
func (g *Repo) newBatch() *batch {
	b := &batch{objs: memory.NewStorage()}
	if g.plainDir() {
		b.dir = filepath.Join(g.GitDir(), "objects", "pack")
		if g.objects == nil {
			g.objects = readObjectIndex(filepath.Dir(b.dir))
		}
		b.index = g.objects
	}
	var ok bool
	if b.to, ok = g.r.Storer.(storer.PackfileWriter); !ok && b.dir == "" {
		return nil
	}
	b.reindex, _ = g.r.Storer.(interface{ Reindex() })
	return b
}

// add keeps an object for the pack.
func (b *batch) add(eo plumbing.EncodedObject) (plumbing.Hash, error) {
	if b.objs.HasEncodedObject(eo.Hash()) == nil {
		return eo.Hash(), nil
	}
	h, err := b.objs.SetEncodedObject(eo)
	if err == nil {
		b.order = append(b.order, h)
	}
	return h, err
}

// commit returns a commit of the batch.
func (b *batch) commit(hash string) (*object.Commit, bool) {
	if b == nil || !plumbing.IsHash(hash) {
		return nil, false
	}
	c, err := object.GetCommit(b.objs, plumbing.NewHash(hash))
	return c, err == nil
}

// treeObject reads a tree of the batch, else of the repository. The caller
// holds g.mu.
func (g *Repo) treeObject(h plumbing.Hash) (*object.Tree, error) {
	if g.pending != nil {
		if t, err := object.GetTree(g.pending.objs, h); err == nil {
			return t, nil
		}
	}
	return g.r.TreeObject(h)
}

// flush writes the batch's objects into the repository as one pack (none
// for none).
func (b *batch) flush() error {
	if b == nil || len(b.order) == 0 {
		return nil
	}
	if b.dir != "" && b.reindex != nil {
		return b.writeOwn()
	}
	w, err := b.to.PackfileWriter()
	if err != nil {
		return err
	}
	if _, err := packfile.NewEncoder(w, b.objs, false).Encode(b.order, 0); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// writeOwn writes the batch as kptkit's pack (packwrite.go) and has the
// storage read it.
func (b *batch) writeOwn() error {
	objs := make([]plumbing.EncodedObject, 0, len(b.order))
	for _, h := range b.order {
		o, err := b.objs.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return err
		}
		objs = append(objs, o)
	}
	if err := os.MkdirAll(b.dir, 0o777); err != nil {
		return err
	}
	if err := writePack(b.dir, objs); err != nil {
		return err
	}
	if b.index != nil {
		b.index.wrote(b.order)
	}
	b.reindex.Reindex()
	return nil
}
