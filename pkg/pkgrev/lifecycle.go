package pkgrev

import (
	"errors"
	"fmt"
	"time"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// The lifecycle verbs follow porchctl (pkg/cli/commands/rpkg: propose,
// approve, reject, proposedelete, del, push; internal/cliutils/approval.go)
// and what Porch's server does for each (pkg/engine/engine.go,
// pkg/registry/porch, pkg/apiserver/webhooks.go, pkg/externalrepo/git):
// their refusals and messages are Porch's words.

// Propose makes a ready Draft Proposed: Porch renders the draft once more (a
// "Rendering package" commit of its files), moves it to proposed/<path>/<ws>
// and deletes drafts/<path>/<ws>. files are the draft's package files.
func Propose(s *Snapshot, rev *Revision, files kptpkg.Files, st Stamp) (Change, error) {
	k, _ := ReadKptfile(files[kptfile.FileName])
	if !k.Ready() {
		return Change{}, errors.New(errNotReady)
	}
	switch rev.Lifecycle {
	case porch.LifecycleDraft:
	case porch.LifecycleProposed:
		return Change{Notice: rev.Name + " is already proposed"}, nil
	default:
		return Change{}, fmt.Errorf("cannot propose %s package", rev.Lifecycle)
	}
	msg, err := DraftMessage(rev.Path, rev.Workspace, RenderTask())
	if err != nil {
		return Change{}, err
	}
	return Change{
		Commit: st.commit(NewCommit{Base: rev.Commit, Parents: []string{rev.Commit}, Path: rev.Path, Files: files, Message: msg}),
		Refs:   []RefUpdate{create(ProposedRef(rev.Path, rev.Workspace)), deleteRef(rev.Ref, rev.RefHash)},
		Done:   rev.Name + " proposed",
	}, nil
}

// Approve publishes a ready Proposed revision: a commit on the branch whose
// parents are the branch's head and the proposal's, whose tree is the
// branch's with the package's folder replaced by the proposal's; the branch
// and the new tag <path>/v<N> move to it, the proposed branch is deleted.
// Approving a DeletionProposed revision makes it Published again, as
// porchctl does (it is deleted by Delete); approving a Published one does
// nothing. kf is the revision's Kptfile.
func Approve(s *Snapshot, rev *Revision, kf []byte, st Stamp) (Change, error) {
	k, _ := ReadKptfile(kf)
	if !k.Ready() {
		return Change{}, errors.New(errNotReady)
	}
	done := rev.Name + " approved"
	switch rev.Lifecycle {
	case porch.LifecycleProposed:
		return publish(s, rev, st, done)
	case porch.LifecycleDeletionProposed:
		return Change{Refs: []RefUpdate{deleteRef(rev.Deletion, rev.DeletionHash)}, Done: done}, nil
	case porch.LifecyclePublished:
		return Change{Done: done}, nil
	}
	return Change{}, fmt.Errorf("cannot change approval from %s to %s", rev.Lifecycle, porch.LifecyclePublished)
}

func publish(s *Snapshot, rev *Revision, st Stamp, done string) (Change, error) {
	if s.Branch == "" {
		return Change{}, fmt.Errorf("failed to find %q branch", s.Repo.Branch)
	}
	n := s.NextRevision(rev.Path)
	msg, err := ApprovalMessage(rev.Path, rev.Workspace, n)
	if err != nil {
		return Change{}, err
	}
	return Change{
		Commit: st.commit(NewCommit{Base: s.Branch, Parents: []string{s.Branch, rev.Commit}, Path: rev.Path, Tree: rev.Tree, Message: msg}),
		Refs: []RefUpdate{
			moveToCommit(BranchRef(s.Repo.Branch), s.Branch),
			create(TagRef(rev.Path, n, rev.Workspace)),
			deleteRef(rev.Ref, rev.RefHash),
		},
		Done: done,
	}, nil
}

// Reject returns a Proposed revision to Draft (drafts/ again, proposed/
// deleted) and a DeletionProposed one to Published (its deletionProposed
// branch deleted).
func Reject(rev *Revision) (Change, error) {
	switch rev.Lifecycle {
	case porch.LifecycleProposed:
		return Change{
			Refs: []RefUpdate{createAt(DraftRef(rev.Path, rev.Workspace), rev.Commit), deleteRef(rev.Ref, rev.RefHash)},
			Done: rev.Name + " no longer proposed for approval",
		}, nil
	case porch.LifecycleDeletionProposed:
		return Change{Refs: []RefUpdate{deleteRef(rev.Deletion, rev.DeletionHash)}, Done: rev.Name + " no longer proposed for deletion"}, nil
	}
	return Change{}, fmt.Errorf("cannot reject %s with lifecycle '%s'", rev.Name, rev.Lifecycle)
}

// ProposeDelete marks a Published revision for deletion: the branch
// deletionProposed/<path>/v<N> at its commit.
func ProposeDelete(rev *Revision) (Change, error) {
	switch rev.Lifecycle {
	case porch.LifecyclePublished:
		return Change{
			Refs: []RefUpdate{createAt(DeletionProposedRef(rev.Path, rev.Revision, rev.Workspace), rev.Commit)},
			Done: rev.Name + " proposed for deletion",
		}, nil
	case porch.LifecycleDeletionProposed:
		return Change{Notice: rev.Name + " is already proposed for deletion"}, nil
	}
	return Change{}, fmt.Errorf("can only propose published packages for deletion; package %s is not published", rev.Name)
}

// Delete deletes a revision: a draft's or proposal's branch; a
// DeletionProposed revision's tag and deletionProposed branch; the branch's
// head revision by a commit that removes the package from the branch. A
// Published revision is refused (it must be proposed for deletion first), and
// so is a revision another names as its upstream (referencedBy, "" for none).
func Delete(s *Snapshot, rev *Revision, referencedBy string, st Stamp) (Change, error) {
	if rev.Lifecycle == porch.LifecyclePublished {
		return Change{}, fmt.Errorf("failed to delete package revision %q: published PackageRevisions must be proposed for deletion by setting spec.lifecycle to 'DeletionProposed' prior to deletion", rev.Name)
	}
	if referencedBy != "" {
		return Change{}, fmt.Errorf("cannot delete package revision, it is referenced as upstream by: %s", referencedBy)
	}
	done := rev.Name + " deleted"
	switch p := ParseRef(rev.Ref, s.Repo.Branch); {
	case rev.Lifecycle != porch.LifecycleDeletionProposed:
		return Change{Refs: []RefUpdate{deleteRef(rev.Ref, rev.RefHash)}, Done: done}, nil
	case p.Kind == RefTag:
		if want := TagRef(rev.Path, rev.Revision, rev.Workspace); rev.Ref != want {
			return Change{}, fmt.Errorf("cannot delete package tagged with a tag that is not specific to the package: %s", rev.Ref)
		}
		return Change{Refs: []RefUpdate{deleteRef(rev.Ref, rev.RefHash), deleteRef(rev.Deletion, rev.DeletionHash)}, Done: done}, nil
	}
	return Change{
		Commit: st.commit(NewCommit{Base: s.Branch, Parents: []string{s.Branch}, Path: rev.Path, Remove: true, Message: DeleteMessage(rev.Path)}),
		Refs:   []RefUpdate{moveToCommit(rev.Ref, rev.RefHash), deleteRef(rev.Deletion, rev.DeletionHash)},
		Done:   done,
	}, nil
}

// Push replaces a Draft's files by a commit on its branch, as porchctl rpkg
// push does: resourceVersion is the commit the files were pulled at (the
// draft must still be there), files the package without
// .KptRevisionMetadata.
func Push(rev *Revision, files kptpkg.Files, resourceVersion string, st Stamp) (Change, error) {
	if resourceVersion == "" {
		return Change{}, errors.New("resourceVersion must be specified for an update")
	}
	if resourceVersion != rev.Commit {
		return Change{}, fmt.Errorf("Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev %q: the object has been modified; please apply your changes to the latest version and try again", rev.Name) //nolint:staticcheck // Kubernetes' words
	}
	if rev.Lifecycle != porch.LifecycleDraft {
		return Change{}, fmt.Errorf("cannot update a package revision with lifecycle value %q; package must be Draft", rev.Lifecycle)
	}
	if _, ok := files[kptfile.FileName]; !ok {
		return Change{}, errors.New("package must contain Kptfile at root")
	}
	msg, err := DraftMessage(rev.Path, rev.Workspace, RenderTask())
	if err != nil {
		return Change{}, err
	}
	return Change{
		Commit: st.commit(NewCommit{Base: rev.Commit, Parents: []string{rev.Commit}, Path: rev.Path, Files: files, Message: msg}),
		Refs:   []RefUpdate{moveToCommit(rev.Ref, rev.RefHash)},
		Done:   rev.Name + " pushed",
	}, nil
}

// CreateBranch returns the change that creates a Repository's missing
// branch as Porch does when spec.git.createBranch is set: a commit of a
// README.md, Porch the author and the committer.
func CreateBranch(s *Snapshot, when time.Time) Change {
	porchSig := Signature{Name: PorchName, Email: PorchEmail, When: when}
	return Change{
		Commit: &NewCommit{Files: kptpkg.Files{InitialReadme: []byte(InitialReadmeContent)}, Message: MessageInitialBranch, Author: porchSig, Committer: porchSig},
		Refs:   []RefUpdate{create(BranchRef(s.Repo.Branch))},
	}
}
