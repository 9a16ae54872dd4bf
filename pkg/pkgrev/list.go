package pkgrev

import (
	"cmp"
	"fmt"
	"path"
	"slices"

	"github.com/kptkit/kptkit/pkg/api/porch"
)

// Ref is a ref as read from a repository.
type Ref struct {
	// Name is the full name (refs/heads/..., refs/tags/...).
	Name string
	// Hash is the object the ref names (an annotated tag's own object).
	Hash string
	// Commit is the commit it names, through annotated tags; "" when it
	// names no commit.
	Commit string
}

// Objects reads the git objects of a repository the model needs.
type Objects interface {
	// Packages returns the packages at a commit below dir ("" for the whole
	// tree): each folder with a Kptfile, without looking inside a package.
	Packages(commit, dir string) ([]Package, error)
	// Package returns the tree of the folder path at a commit, and whether
	// it is a package (holds a Kptfile).
	Package(commit, path string) (tree string, ok bool, err error)
	// Commit reads a commit.
	Commit(hash string) (Commit, error)
	// Log visits the commits reachable from a commit, newest (by committer
	// time) first, until visit returns false.
	Log(from string, visit func(Commit) bool) error
}

// Package is a package found in a tree: its full path and its tree.
type Package struct{ Path, Tree string }

// Commit is what the model reads of a commit.
type Commit struct {
	Hash    string
	Message string
	Author  Signature
	Parents []string
}

// Revision is one package revision of a repository.
type Revision struct {
	// Name is the PackageRevision's name.
	Name string
	// Package is the package's path relative to the Repository's directory
	// (spec.packageName); Path is its full path.
	Package, Path string
	Workspace     string
	// Revision is the revision number: 0 for a draft or proposal, -1 for the
	// branch's head.
	Revision  int
	Lifecycle string
	Latest    bool
	// Ref is the ref the revision lives on, RefHash its value (what a move
	// or deletion of it is checked against).
	Ref, RefHash string
	// Commit and Tree are the revision's commit and its package's tree.
	Commit, Tree string
	// Deletion is the deletionProposed ref of a DeletionProposed revision,
	// DeletionHash its value.
	Deletion, DeletionHash string
}

// Snapshot is a repository's package revisions as read at one moment.
type Snapshot struct {
	Repo Repository
	// Branch is the head commit of the Repository's branch; "" when the
	// repository lacks it (a Repository with createBranch).
	Branch    string
	Revisions []Revision
}

// Read lists the package revisions of a repository from its refs, as
// Porch's git adapter lists them (listPackageRevisions,
// pkg/externalrepo/git/git.go): the branch's packages below the directory
// (revision -1, workspace the branch), each tag <path>/<version> whose commit
// holds a package at <path> (Published, or DeletionProposed when a
// deletionProposed branch marks it; the workspace from its commit's
// annotation, else v<N>), each drafts/ and proposed/ branch whose commit
// holds its package (revision 0). A repository without its branch is an
// error unless the Repository creates it.
func Read(repo Repository, refs []Ref, objs Objects) (*Snapshot, error) {
	s := &Snapshot{Repo: repo}
	deletion := map[string]string{}
	for _, r := range refs {
		if ParseRef(r.Name, repo.Branch).Kind == RefDeletionProposed {
			deletion[r.Name] = r.Hash
		}
	}
	var branch *Ref
	for i, r := range refs {
		p := ParseRef(r.Name, repo.Branch)
		if p.Kind == RefBranch {
			branch = &refs[i]
			continue
		}
		rev, ok, err := s.revisionAt(r, p, objs)
		if err != nil {
			return nil, err
		}
		if ok {
			s.add(rev, deletion)
		}
	}
	if branch == nil {
		if !repo.CreateBranch {
			return nil, fmt.Errorf("branch %q doesn't exist", repo.Branch)
		}
	} else if err := s.readBranch(*branch, objs, deletion); err != nil {
		return nil, err
	}
	markLatest(s.Revisions)
	sortRevisions(s.Revisions)
	return s, nil
}

// revisionAt reads the revision a draft, proposed or tag ref holds; ok is
// false for other refs and for refs whose commit holds no package.
func (s *Snapshot) revisionAt(r Ref, p ParsedRef, objs Objects) (Revision, bool, error) {
	var lifecycle string
	switch p.Kind {
	case RefDraft:
		lifecycle = porch.LifecycleDraft
	case RefProposed:
		lifecycle = porch.LifecycleProposed
	case RefTag:
		lifecycle = porch.LifecyclePublished
	default:
		return Revision{}, false, nil
	}
	if r.Commit == "" || !InDirectory(p.Path, s.Repo.Directory) || Relative(p.Path, s.Repo.Directory) == "" {
		return Revision{}, false, nil
	}
	tree, ok, err := objs.Package(r.Commit, p.Path)
	if err != nil || !ok {
		return Revision{}, false, err
	}
	rev := Revision{Path: p.Path, Workspace: p.Version, Lifecycle: lifecycle, Ref: r.Name, RefHash: r.Hash, Commit: r.Commit, Tree: tree}
	if p.Kind == RefTag {
		rev.Revision, rev.Workspace = s.tagVersion(r.Commit, p, objs)
	}
	return rev, true, nil
}

// tagVersion returns a tag's revision and workspace: the revision read off
// its last segment (-1 when it is no number, the segment then being the
// workspace), the workspace from the annotation of its commit, else v<N>
// (buildGitPackageRevision).
func (s *Snapshot) tagVersion(commit string, p ParsedRef, objs Objects) (int, string) {
	revision := ParseRevision(p.Version)
	if revision == -1 {
		return -1, p.Version
	}
	return revision, PublishedWorkspace(objs, commit, p.Path, revision)
}

// readBranch adds the branch's packages: the head revisions.
func (s *Snapshot) readBranch(branch Ref, objs Objects, deletion map[string]string) error {
	s.Branch = branch.Commit
	if branch.Commit == "" {
		return fmt.Errorf("branch %q does not name a commit", s.Repo.Branch)
	}
	pkgs, err := objs.Packages(branch.Commit, s.Repo.Directory)
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		if Relative(p.Path, s.Repo.Directory) == "" {
			continue // a package at the directory itself has no name
		}
		s.add(Revision{
			Path: p.Path, Workspace: s.Repo.Branch, Revision: -1, Lifecycle: porch.LifecyclePublished,
			Ref: branch.Name, RefHash: branch.Hash, Commit: branch.Commit, Tree: p.Tree,
		}, deletion)
	}
	return nil
}

// add completes a revision (name, package, deletion proposal) and keeps it.
func (s *Snapshot) add(rev Revision, deletion map[string]string) {
	rev.Package = Relative(rev.Path, s.Repo.Directory)
	rev.Name = Name(s.Repo.Name, rev.Package, rev.Workspace)
	if rev.Lifecycle == porch.LifecyclePublished {
		ref := DeletionProposedRef(rev.Path, rev.Revision, rev.Workspace)
		if h, ok := deletion[ref]; ok {
			rev.Lifecycle = porch.LifecycleDeletionProposed
			rev.Deletion, rev.DeletionHash = ref, h
		}
	}
	s.Revisions = append(s.Revisions, rev)
}

// IsPublished reports whether a lifecycle is Published or DeletionProposed
// (Porch's LifecycleIsPublished).
func IsPublished(lifecycle string) bool {
	return lifecycle == porch.LifecyclePublished || lifecycle == porch.LifecycleDeletionProposed
}

// markLatest marks, for each package, its published revision with the
// highest number (never the branch's head) as Porch's cache does
// (identifyLatestRevisions, pkg/cache/crcache/util.go).
func markLatest(revs []Revision) {
	latest := map[string]int{}
	for i, r := range revs {
		if !IsPublished(r.Lifecycle) || r.Revision == -1 {
			continue
		}
		if j, ok := latest[r.Path]; !ok || r.Revision > revs[j].Revision {
			latest[r.Path] = i
		}
	}
	for _, i := range latest {
		revs[i].Latest = true
	}
}

// sortRevisions orders revisions as Porch's cache lists them
// (toPackageRevisionSlice): by package name (the last segment of its path),
// revision, lifecycle, then name.
func sortRevisions(revs []Revision) {
	slices.SortStableFunc(revs, func(a, b Revision) int {
		return cmp.Or(cmp.Compare(path.Base(a.Package), path.Base(b.Package)), cmp.Compare(a.Revision, b.Revision),
			cmp.Compare(a.Lifecycle, b.Lifecycle), cmp.Compare(a.Name, b.Name))
	})
}

// Find returns the revision of the snapshot with the name.
func (s *Snapshot) Find(name string) (*Revision, bool) {
	for i := range s.Revisions {
		if s.Revisions[i].Name == name {
			return &s.Revisions[i], true
		}
	}
	return nil, false
}

// NextRevision returns the number the next published revision of a package
// (its full path) gets: one more than the highest of its Published and
// DeletionProposed revisions, so that the number of a deleted tag is given
// again when it was the highest (crcache's ClosePackageRevisionDraft).
func (s *Snapshot) NextRevision(full string) int {
	highest := 0
	for _, r := range s.Revisions {
		if r.Path == full && IsPublished(r.Lifecycle) && r.Revision > highest {
			highest = r.Revision
		}
	}
	return highest + 1
}
