package pkgrev

import (
	"time"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Change is what a lifecycle verb does to a repository: at most one new
// commit (a variant's draft: a chain of them), then ref moves, each checked
// against the value the snapshot read, all of them together or none.
type Change struct {
	// Commit is the commit to write before any ref moves; nil for none.
	Commit *NewCommit
	// Then are more commits, written after Commit in order: a Base or parent
	// of Prior names the commit written just before. A ref moved ToCommit
	// names the last commit written.
	Then []*NewCommit
	// Refs are the ref moves, in the order given.
	Refs []RefUpdate
	// Done is what porchctl prints (stdout) when the change is made;
	// Notice what it prints (stderr) when there is nothing to do.
	Done, Notice string
}

// NewCommit is a commit to write: the root tree of Base (none: an empty
// tree) with the package at Path ("" for the root itself) replaced by Tree, or by Files (each a blob
// of mode 100644), or removed; then the parents, message and signatures.
type NewCommit struct {
	Base    string
	Parents []string
	Path    string
	Tree    string
	Files   kptpkg.Files
	Remove  bool
	Message string
	Author  Signature
	// Committer is always Porch.
	Committer Signature
}

// Prior, as a NewCommit's Base or parent in a Change's Then, names the
// commit the change wrote just before it.
const Prior = "prior"

// Commits returns the change's commits in the order they are written.
func (c Change) Commits() []*NewCommit {
	if c.Commit == nil {
		return nil
	}
	return append([]*NewCommit{c.Commit}, c.Then...)
}

// Empty reports whether the change writes nothing and moves no ref.
func (c Change) Empty() bool { return c.Commit == nil && len(c.Refs) == 0 }

// RefUpdate moves one ref: from Old ("" : the ref must not exist) to New
// ("" : the ref is deleted), or to the change's new commit (ToCommit).
type RefUpdate struct {
	Name     string
	Old, New string
	ToCommit bool
}

// Stamp is who makes a change and when: the commits' author and committer.
type Stamp struct{ Author, Committer Signature }

// StampFor returns the stamp of a change in a repository (see Signatures).
func StampFor(repo Repository, user string, when time.Time) Stamp {
	a, c := Signatures(repo, user, when)
	return Stamp{Author: a, Committer: c}
}

func (st Stamp) commit(c NewCommit) *NewCommit {
	c.Author, c.Committer = st.Author, st.Committer
	return &c
}

func create(name string) RefUpdate { return RefUpdate{Name: name, ToCommit: true} }

func createAt(name, commit string) RefUpdate { return RefUpdate{Name: name, New: commit} }

func deleteRef(name, old string) RefUpdate { return RefUpdate{Name: name, Old: old} }

func moveToCommit(name, old string) RefUpdate { return RefUpdate{Name: name, Old: old, ToCommit: true} }
