package pkgrev

import (
	"fmt"
	"time"

	"github.com/kptkit/kptkit/pkg/api/porch"
)

// Porch's own signature: the committer of every commit it makes, and the
// author when neither the Repository nor the request names one
// (pkg/externalrepo/git/commit.go).
const (
	PorchName  = "Package Orchestration Service"
	PorchEmail = "porch@kpt.dev"
)

// Signature is a commit's author or committer.
type Signature struct {
	Name, Email string
	When        time.Time
}

// Signatures returns the author and committer of the commits made in a
// repository at a time: the author is the Repository's spec.git.author and
// email as Porch fills them (only an email: the name is the email; only an
// author: no email), else the user (Porch uses the requesting user's name as
// both name and email), else Porch itself; the committer is always Porch.
func Signatures(repo Repository, user string, when time.Time) (author, committer Signature) {
	committer = Signature{Name: PorchName, Email: PorchEmail, When: when}
	switch {
	case repo.Author != "" || repo.Email != "":
		name := repo.Author
		if name == "" {
			name = repo.Email
		}
		author = Signature{Name: name, Email: repo.Email, When: when}
	case user != "":
		author = Signature{Name: user, Email: user, When: when}
	default:
		author = committer
	}
	return author, committer
}

// Porch's commit messages (pkg/externalrepo/git/git.go).
const (
	messageRender  = "Rendering package"
	messageEdit    = "Creating new revision by copying previous revision"
	messageInit    = "Creating new empty revision"
	messageClone   = "Creating new revision by cloning"
	messageUpgrade = "Upgrading revision"

	// MessageInitialBranch and InitialReadme are the commit and file Porch
	// creates a missing branch with (spec.git.createBranch).
	MessageInitialBranch = "Initial commit: Creating main branch"
	InitialReadme        = "README.md"
	InitialReadmeContent = "Created by porch"
)

// taskMessage is the first line of the message of a commit a task makes
// (formatCommitMessage).
func taskMessage(task *porch.Task) string {
	if task == nil {
		return "Intermediate commit"
	}
	switch task.Type {
	case porch.TaskInit:
		return messageInit
	case porch.TaskRender:
		return messageRender
	case porch.TaskEdit:
		return messageEdit
	case porch.TaskClone:
		return messageClone
	case porch.TaskUpgrade:
		return messageUpgrade
	case "":
		return "Intermediate commit"
	}
	return "Intermediate commit: " + task.Type
}

// DraftMessage returns the message of a commit on a draft of the package
// (full path) in the workspace, made by a task: Porch's text, a newline, then
// the annotation (package, workspace, revision "0", the task).
func DraftMessage(full, workspace string, task *porch.Task) (string, error) {
	return Annotate(taskMessage(task)+"\n", Annotation{Package: full, WorkspaceName: workspace, Revision: "0", Task: task})
}

// ApprovalMessage returns the message of the commit that publishes a
// revision on the branch: "Approving package revision <path>/<N>" and the
// annotation (package, workspace, revision), no task.
func ApprovalMessage(full, workspace string, revision int) (string, error) {
	return Annotate(fmt.Sprintf("Approving package revision %s/%d", full, revision),
		Annotation{Package: full, WorkspaceName: workspace, Revision: fmt.Sprint(revision)})
}

// DeleteMessage is the message of the commit that removes a package from
// the branch when its head revision is deleted: "Delete <path>", no
// annotation.
func DeleteMessage(full string) string { return "Delete " + full }

// RenderTask is the task of a commit that renders a draft (a push, a
// proposal).
func RenderTask() *porch.Task { return &porch.Task{Type: porch.TaskRender} }

// CloneTask is the task of a draft cloned from an upstream PackageRevision.
func CloneTask(upstream string) *porch.Task {
	return &porch.Task{Type: porch.TaskClone, Clone: &porch.CloneTask{Upstream: porch.UpstreamPackage{UpstreamRef: &porch.PackageRevisionRef{Name: upstream}}}}
}

// EditTask is the task of a draft copied from a published revision of the
// same package.
func EditTask(source string) *porch.Task {
	return &porch.Task{Type: porch.TaskEdit, Edit: &porch.EditTask{Source: &porch.PackageRevisionRef{Name: source}}}
}

// UpgradeTask is the task of a draft that merges a new upstream revision
// into a published downstream one, as the PackageVariant controller asks.
func UpgradeTask(oldUpstream, newUpstream, local string) *porch.Task {
	return &porch.Task{Type: porch.TaskUpgrade, Upgrade: &porch.UpgradeTask{
		OldUpstream:             porch.PackageRevisionRef{Name: oldUpstream},
		NewUpstream:             porch.PackageRevisionRef{Name: newUpstream},
		LocalPackageRevisionRef: porch.PackageRevisionRef{Name: local},
		Strategy:                porch.StrategyResourceMerge,
	}}
}
