package catalog

import (
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Tree is a repository's files at one revision — a git commit, or a folder
// as it is — read when first needed; each file is parsed once, however
// many packages hold it.
type Tree struct {
	// Commit is the git commit, "" for a folder.
	Commit string
	read   func() (kptpkg.Files, error)
	loaded bool
	f      kptpkg.Files
	layout *kptpkg.Layout // f's, worked out once for all its packages
	err    error
	parsed map[string]parsedFile
}

type parsedFile struct {
	items []*yaml.RNode
	err   error
}

// NewTree returns the tree of a git commit, read by read when a version
// must be read (not when the previous index has it).
func NewTree(commit string, read func() (kptpkg.Files, error)) *Tree {
	return &Tree{Commit: commit, read: read}
}

// FolderTree returns the tree of a folder's files.
func FolderTree(files kptpkg.Files) *Tree { return &Tree{f: files, loaded: true} }

func (t *Tree) files() (kptpkg.Files, error) {
	if !t.loaded {
		t.f, t.err = t.read()
		t.loaded = true
	}
	return t.f, t.err
}

// files' layout, worked out when first needed.
func (t *Tree) filesLayout() *kptpkg.Layout {
	if t.layout == nil {
		files, _ := t.files()
		t.layout = files.Layout()
	}
	return t.layout
}

// bad is why a version cannot be read: the file and what is wrong.
type bad struct{ file, msg string }

// pkg reads the package at dir from the tree: every item of its tree
// (subpackages included, as `kpt pkg get` copies them), and which of them
// are its own (not its subpackages').
func (t *Tree) pkg(dir string) (*pkgView, *bad) {
	files, _ := t.files()
	layout := t.filesLayout()
	if t.parsed == nil {
		t.parsed = map[string]parsedFile{}
	}
	v := &pkgView{dir: dir, own: map[*yaml.RNode]bool{}}
	ownPaths := map[string]bool{}
	for _, p := range layout.ResourcePaths(dir, false) {
		ownPaths[p] = true
	}
	for _, p := range layout.ResourcePaths(dir, true) {
		pf, ok := t.parsed[p]
		if !ok {
			pf.items, pf.err = kptpkg.Items(p, files[p])
			t.parsed[p] = pf
		}
		if pf.err != nil {
			return nil, &bad{file: p, msg: withoutFile(pf.err, p)}
		}
		own := ownPaths[p]
		for _, n := range pf.items {
			v.items = append(v.items, n)
			if own {
				v.own[n] = true
			}
		}
	}
	return v, nil
}

// withoutFile is kptpkg.Items' error about file p without the file, which
// the warning names once: Items writes `cannot read p: ...` or `p: ...`.
func withoutFile(err error, p string) string {
	msg := strings.TrimPrefix(err.Error(), "cannot read "+p+": ")
	return strings.TrimPrefix(msg, p+": ")
}

// digest is the sha256 of a package's files (paths relative to it, then
// contents), subpackages included: `sha256:<hex>`.
func digest(files kptpkg.Files) string {
	d := kptpkg.NewDigest(kptpkg.NULFraming)
	d.Files(files, slices.Sorted(maps.Keys(files))) // byte order, not Paths': the order it was first written with
	return "sha256:" + d.Hex()
}
