package gitrepo

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// WriteCommit writes a new commit's objects into the repository, as Porch's
// commit helper makes them (pkg/externalrepo/git/commit.go): each file a
// blob of mode 100644, the package's folder a new tree (or the given one, or
// none), every folder above it rewritten with its other entries kept, then
// the commit. It returns the commit's hash; no ref moves.
func (g *Repo) WriteCommit(c *pkgrev.NewCommit) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writeCommit(c)
}

// writeCommit is WriteCommit; the caller holds g.mu.
func (g *Repo) writeCommit(c *pkgrev.NewCommit) (string, error) {
	root, err := g.baseTree(c.Base)
	if err != nil {
		return "", err
	}
	pkg, err := g.packageTree(c)
	if err != nil {
		return "", err
	}
	tree, err := g.replace(root, splitPath(c.Path), pkg, c.Remove, "")
	if err != nil {
		return "", fmt.Errorf("cannot write the tree of %s in %s: %w", c.Path, g.URL, err)
	}
	commit := &object.Commit{
		Author:    object.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer: object.Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.When},
		Message:   c.Message,
		TreeHash:  tree,
	}
	for _, p := range c.Parents {
		if !plumbing.IsHash(p) {
			return "", fmt.Errorf("parent %q is not a commit hash", p)
		}
		commit.ParentHashes = append(commit.ParentHashes, plumbing.NewHash(p))
	}
	h, err := g.store(commit)
	if err != nil {
		return "", fmt.Errorf("cannot write a commit in %s: %w", g.URL, err)
	}
	return h.String(), nil
}

// encoder is an object that encodes itself (a blob's writer aside).
type encoder interface {
	Encode(plumbing.EncodedObject) error
}

// store writes an object. The caller holds g.mu.
func (g *Repo) store(o encoder) (plumbing.Hash, error) {
	eo := g.r.Storer.NewEncodedObject()
	if err := o.Encode(eo); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.save(eo)
}

// save writes an object the repository does not hold already (a variant's
// render commit shares most of its objects with its task commit). The
// caller holds g.mu.
func (g *Repo) save(eo plumbing.EncodedObject) (plumbing.Hash, error) {
	h := eo.Hash()
	if g.pending != nil {
		if g.pending.objs.HasEncodedObject(h) == nil {
			return h, nil // written in this batch already: no need to look on disk
		}
		if x := g.pending.index; x != nil && x.absent(h) {
			return g.pending.add(eo)
		}
	}
	if g.r.Storer.HasEncodedObject(h) == nil {
		return h, nil
	}
	if g.pending != nil {
		return g.pending.add(eo)
	}
	g.objects = nil // a loose object: the index is read again
	return g.r.Storer.SetEncodedObject(eo)
}

// baseTree returns the root tree of the base commit, or an empty tree. The
// caller holds g.mu.
func (g *Repo) baseTree(base string) (*object.Tree, error) {
	if base == "" {
		return &object.Tree{}, nil
	}
	if c, ok := g.pending.commit(base); ok {
		return g.treeObject(c.TreeHash)
	}
	return g.rootTree(base)
}

// packageTree returns the tree the package's folder becomes: the given tree,
// a tree of the given files, or none (removal). The caller holds g.mu.
func (g *Repo) packageTree(c *pkgrev.NewCommit) (plumbing.Hash, error) {
	switch {
	case c.Remove:
		return plumbing.ZeroHash, nil
	case c.Files != nil:
		return g.filesTree(c.Files)
	case plumbing.IsHash(c.Tree):
		h := plumbing.NewHash(c.Tree)
		if _, err := g.treeObject(h); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("tree %s of %s: %w", short(c.Tree), g.URL, err)
		}
		return h, nil
	}
	return plumbing.ZeroHash, fmt.Errorf("the new commit for %s names neither files nor a tree", c.Path)
}

// filesTree writes the blobs and trees of a package's files. A path that
// could leave the package, or that names a .git folder, is an error. The
// caller holds g.mu.
func (g *Repo) filesTree(files kptpkg.Files) (plumbing.Hash, error) {
	root := &dirNode{dirs: map[string]*dirNode{}, files: map[string][]byte{}}
	for p, b := range files {
		if err := checkTreePath(p); err != nil {
			return plumbing.ZeroHash, err
		}
		root.add(splitPath(p), b)
	}
	return g.writeDir(root)
}

// checkTreePath refuses a path that is not a clean relative path, or that
// has a .git segment (git would refuse to check it out).
func checkTreePath(p string) error {
	if err := kptpkg.CheckPath("file", p); err != nil {
		return err
	}
	for _, seg := range splitPath(p) {
		if strings.EqualFold(seg, ".git") {
			return fmt.Errorf("file %q: a .git folder cannot be written into a repository", p)
		}
	}
	return nil
}

// dirNode is a folder of files being written.
type dirNode struct {
	dirs  map[string]*dirNode
	files map[string][]byte
}

func (d *dirNode) add(parts []string, b []byte) {
	if len(parts) == 1 {
		d.files[parts[0]] = b
		return
	}
	sub := d.dirs[parts[0]]
	if sub == nil {
		sub = &dirNode{dirs: map[string]*dirNode{}, files: map[string][]byte{}}
		d.dirs[parts[0]] = sub
	}
	sub.add(parts[1:], b)
}

// writeDir writes a folder's blobs and trees. The caller holds g.mu.
func (g *Repo) writeDir(d *dirNode) (plumbing.Hash, error) {
	t := &object.Tree{}
	for name, b := range d.files {
		h, err := g.writeBlob(b)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name, sub := range d.dirs {
		if _, clash := d.files[name]; clash {
			return plumbing.ZeroHash, fmt.Errorf("%q is both a file and a folder", name)
		}
		h, err := g.writeDir(sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	sort.Sort(object.TreeEntrySorter(t.Entries))
	return g.store(t)
}

// writeBlob writes a file's bytes. The caller holds g.mu.
func (g *Repo) writeBlob(b []byte) (plumbing.Hash, error) {
	eo := g.r.Storer.NewEncodedObject()
	eo.SetType(plumbing.BlobObject)
	eo.SetSize(int64(len(b)))
	w, err := eo.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return g.save(eo)
}

// replace returns the hash of tree t with the entry at parts set to the
// folder sub (or removed), writing every tree on the way; at is t's path,
// for messages. A file where a folder of the path should be is an error, as
// in Porch. The caller holds g.mu.
func (g *Repo) replace(t *object.Tree, parts []string, sub plumbing.Hash, remove bool, at string) (plumbing.Hash, error) {
	if len(parts) == 0 {
		return sub, nil
	}
	name, entries := parts[0], append([]object.TreeEntry(nil), t.Entries...)
	i := indexOf(entries, name)
	if len(parts) > 1 {
		child := &object.Tree{}
		if i >= 0 {
			if entries[i].Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("path %q is %s, not a directory", joinPath(at, name), entries[i].Mode)
			}
			var err error
			if child, err = g.treeObject(entries[i].Hash); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		h, err := g.replace(child, parts[1:], sub, remove, joinPath(at, name))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		sub, remove = h, false
	}
	switch {
	case remove && i >= 0:
		entries = append(entries[:i], entries[i+1:]...)
	case remove:
	case i >= 0:
		entries[i] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: sub}
	default:
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: sub})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	return g.store(&object.Tree{Entries: entries})
}

func indexOf(entries []object.TreeEntry, name string) int {
	for i, e := range entries {
		if e.Name == name {
			return i
		}
	}
	return -1
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}
