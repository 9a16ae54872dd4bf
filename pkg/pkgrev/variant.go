package pkgrev

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// What a PackageVariant writes into its downstream Repository, as Porch's
// PackageVariant controller has it written (controllers/packagevariants/
// pkg/controllers/packagevariant/packagevariant_controller.go) and Porch's
// git adapter writes it (pkg/externalrepo/git/git.go).

// VariantWorkspacePrefix starts the workspace of every draft the
// PackageVariant controller makes.
const VariantWorkspacePrefix = "packagevariant-"

// NewWorkspace returns the workspace of a new draft of a package (its path
// relative to the directory): packagevariant-N, N one more than the highest
// of the package's packagevariant-* workspaces, whatever their lifecycle (a
// workspace whose number does not read counts as 0), as Porch's
// newWorkspaceName.
func (s *Snapshot) NewWorkspace(pkg string) string {
	highest := 0
	for _, r := range s.Revisions {
		if r.Package != pkg {
			continue
		}
		if n, ok := strings.CutPrefix(r.Workspace, VariantWorkspacePrefix); ok {
			v, _ := strconv.Atoi(n)
			highest = max(highest, v)
		}
	}
	return VariantWorkspacePrefix + strconv.Itoa(highest+1)
}

// PublishedWorkspace returns the workspace of the published revision
// (number revision) of a package (its full path) at a commit: the one its
// commit's annotation names for the package, else v<N>
// (buildGitPackageRevision).
func PublishedWorkspace(objs Objects, commit, full string, revision int) string {
	if c, err := objs.Commit(commit); err == nil {
		annotations, _ := ReadAnnotations(c.Message) // Porch keeps what reads
		if ws := WorkspaceOf(annotations, full); ws != "" {
			return ws
		}
	}
	return "v" + strconv.Itoa(revision)
}

// Draft is what a PackageVariant writes into a package's draft: the package
// its task makes and the package as rendered.
type Draft struct {
	// Path is the package's full path; Workspace the draft's.
	Path, Workspace string
	// Task is the task of the draft's first commit (clone, edit, upgrade);
	// nil writes none (a draft updated in place from the same upstream).
	Task *porch.Task
	// TaskFiles are the package the task makes, or TaskTree the tree of the
	// revision it copies (an edit).
	TaskFiles kptpkg.Files
	TaskTree  string
	// Files are the package as rendered: the "Rendering package" commit's.
	Files kptpkg.Files
}

// WriteDraft returns the change that writes a variant's draft: on the draft
// rev, or on a new draft (rev nil) whose first commit has the branch's head
// as parent and the branch's tree with the package replaced, the task's
// commit, then a "Rendering package" commit of the rendered files. Then, as
// lifecycle asks: Proposed (one more "Rendering package" commit, as propose
// renders once more; proposed/… created, drafts/… gone) or Published
// (proposed, then approved as Approve does: a commit on the branch with the
// branch's head and the proposal's as parents, the branch and a new tag
// moved to it). A draft whose readiness gates are not met is neither
// proposed nor published: it stays a draft, and notice says why.
func WriteDraft(s *Snapshot, rev *Revision, d Draft, lifecycle string, st Stamp) (c Change, notice string, err error) {
	base := s.Branch
	if rev != nil {
		base = rev.Commit
	}
	if base == "" {
		return Change{}, "", errors.New("the branch " + s.Repo.Branch + " does not exist")
	}
	var commits []*NewCommit
	parent := base
	if d.Task != nil {
		msg, err := DraftMessage(d.Path, d.Workspace, d.Task)
		if err != nil {
			return Change{}, "", err
		}
		commits = append(commits, st.commit(NewCommit{Base: parent, Parents: []string{parent}, Path: d.Path, Files: d.TaskFiles, Tree: d.TaskTree, Message: msg}))
		parent = Prior
	}
	render, err := DraftMessage(d.Path, d.Workspace, RenderTask())
	if err != nil {
		return Change{}, "", err
	}
	commits = append(commits, st.commit(NewCommit{Base: parent, Parents: []string{parent}, Path: d.Path, Files: d.Files, Message: render}))
	if lifecycle != porch.LifecycleDraft {
		if k, _ := ReadKptfile(d.Files[kptfile.FileName]); !k.Ready() {
			notice, lifecycle = errNotReady+": the draft is not "+strings.ToLower(lifecycle), porch.LifecycleDraft
		}
	}
	var refs []RefUpdate
	switch lifecycle {
	case porch.LifecycleDraft:
		if rev == nil {
			refs = []RefUpdate{create(DraftRef(d.Path, d.Workspace))}
		} else {
			refs = []RefUpdate{moveToCommit(rev.Ref, rev.RefHash)}
		}
	case porch.LifecycleProposed:
		commits = append(commits, st.commit(NewCommit{Base: Prior, Parents: []string{Prior}, Path: d.Path, Files: d.Files, Message: render}))
		refs = []RefUpdate{create(ProposedRef(d.Path, d.Workspace))}
	case porch.LifecyclePublished:
		n := s.NextRevision(d.Path)
		approval, err := ApprovalMessage(d.Path, d.Workspace, n)
		if err != nil {
			return Change{}, "", err
		}
		commits = append(commits,
			st.commit(NewCommit{Base: Prior, Parents: []string{Prior}, Path: d.Path, Files: d.Files, Message: render}),
			st.commit(NewCommit{Base: s.Branch, Parents: []string{s.Branch, Prior}, Path: d.Path, Files: d.Files, Message: approval}))
		refs = []RefUpdate{moveToCommit(BranchRef(s.Repo.Branch), s.Branch), create(TagRef(d.Path, n, d.Workspace))}
	default:
		return Change{}, "", errors.New("unknown lifecycle " + strconv.Quote(lifecycle))
	}
	if rev != nil && lifecycle != porch.LifecycleDraft {
		refs = append(refs, deleteRef(rev.Ref, rev.RefHash))
	}
	return Change{Commit: commits[0], Then: commits[1:], Refs: refs}, notice, nil
}

// Applied records in the snapshot what a change applied (commit: its last
// commit) did to the refs the next change's plan reads: the branch's head,
// and the revisions of the refs it created, moved or deleted (their trees
// not read).
func (s *Snapshot) Applied(c Change, commit string) {
	for _, u := range c.Refs {
		value := u.New
		if u.ToCommit {
			value = commit
		}
		p := ParseRef(u.Name, s.Repo.Branch)
		if p.Kind == RefBranch {
			s.Branch = value
			continue
		}
		kept := s.Revisions[:0]
		for _, r := range s.Revisions {
			if r.Ref != u.Name {
				kept = append(kept, r)
			}
		}
		s.Revisions = kept
		if value != "" {
			s.addRef(u.Name, p, value)
		}
	}
}

// addRef adds the revision a draft, proposed or tag ref names.
func (s *Snapshot) addRef(name string, p ParsedRef, value string) {
	rev := Revision{Path: p.Path, Workspace: p.Version, Ref: name, RefHash: value, Commit: value}
	switch p.Kind {
	case RefDraft:
		rev.Lifecycle = porch.LifecycleDraft
	case RefProposed:
		rev.Lifecycle = porch.LifecycleProposed
	case RefTag:
		rev.Lifecycle, rev.Revision = porch.LifecyclePublished, ParseRevision(p.Version)
	default:
		return
	}
	s.add(rev, nil)
}
