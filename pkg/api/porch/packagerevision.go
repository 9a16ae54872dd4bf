package porch

import (
	"encoding/json"
	"time"
)

// PackageRevision (porch.kpt.dev/v1alpha1) is one revision of a package in a
// repository, as Porch's API serves it: the JSON field names and their order
// are Porch's (api/porch/v1alpha1/types.go), so that a value marshalled here
// reads as `porchctl rpkg get -o json` shows it.
type PackageRevision struct {
	Kind       string                `json:"kind,omitempty" yaml:"kind,omitempty"`
	APIVersion string                `json:"apiVersion,omitempty" yaml:"apiVersion,omitempty"`
	Metadata   RevisionMeta          `json:"metadata" yaml:"metadata,omitempty"`
	Spec       PackageRevisionSpec   `json:"spec" yaml:"spec,omitempty"`
	Status     PackageRevisionStatus `json:"status" yaml:"status,omitempty"`
}

// PackageRevisionList is a list of PackageRevisions.
type PackageRevisionList struct {
	Kind       string            `json:"kind,omitempty"`
	APIVersion string            `json:"apiVersion,omitempty"`
	Metadata   struct{}          `json:"metadata"`
	Items      []PackageRevision `json:"items"`
}

// KindRevisionList is the kind of a PackageRevisionList.
const KindRevisionList = "PackageRevisionList"

// RevisionMeta is the metadata Porch gives a PackageRevision that git
// holds: its name, namespace, uid (derived from both), resourceVersion (the
// commit) and labels (kpt.dev/latest-revision on the latest).
type RevisionMeta struct {
	Name            string            `json:"name,omitempty" yaml:"name,omitempty"`
	Namespace       string            `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	UID             string            `json:"uid,omitempty" yaml:"uid,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty" yaml:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
}

// LabelLatestRevision marks the latest published revision of a package.
const LabelLatestRevision = "kpt.dev/latest-revision"

// Lifecycles of a PackageRevision.
const (
	LifecycleDraft            = "Draft"
	LifecycleProposed         = "Proposed"
	LifecyclePublished        = "Published"
	LifecycleDeletionProposed = "DeletionProposed"
)

// PackageRevisionSpec names the revision (repository, package path relative
// to the repository's directory, workspace, revision: 0 for a draft or
// proposal, -1 for the branch's head) and says what made it (tasks).
type PackageRevisionSpec struct {
	PackageName     string           `json:"packageName,omitempty" yaml:"packageName,omitempty"`
	RepositoryName  string           `json:"repository,omitempty" yaml:"repository,omitempty"`
	WorkspaceName   string           `json:"workspaceName,omitempty" yaml:"workspaceName,omitempty"`
	Revision        int              `json:"revision,omitempty" yaml:"revision,omitempty"`
	Lifecycle       string           `json:"lifecycle,omitempty" yaml:"lifecycle,omitempty"`
	Tasks           []Task           `json:"tasks,omitempty" yaml:"tasks,omitempty"`
	ReadinessGates  []ReadinessGate  `json:"readinessGates,omitempty" yaml:"readinessGates,omitempty"`
	PackageMetadata *PackageMetadata `json:"packageMetadata,omitempty" yaml:"packageMetadata,omitempty"`
}

// PackageMetadata is the Kptfile's labels and annotations.
type PackageMetadata struct {
	Labels      map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty" yaml:"annotations,omitempty"`
}

// ReadinessGate names a condition a revision needs before it is proposed or
// approved.
type ReadinessGate struct {
	ConditionType string `json:"conditionType,omitempty" yaml:"conditionType,omitempty"`
}

// PackageRevisionStatus is what Porch observes of a revision: the locks of
// its upstream and of itself, who published it and when, and the Kptfile's
// conditions.
type PackageRevisionStatus struct {
	UpstreamLock *Locator    `json:"upstreamLock,omitempty" yaml:"upstreamLock,omitempty"`
	SelfLock     *Locator    `json:"selfLock,omitempty" yaml:"selfLock,omitempty"`
	PublishedBy  string      `json:"publishedBy,omitempty" yaml:"publishedBy,omitempty"`
	PublishedAt  Time        `json:"publishTimestamp" yaml:"publishTimestamp,omitempty"`
	Deployment   bool        `json:"deployment,omitempty" yaml:"deployment,omitempty"`
	Conditions   []Condition `json:"conditions,omitempty" yaml:"conditions,omitempty"`
}

// Locator is where a package was fetched from.
type Locator struct {
	Type string   `json:"type,omitempty" yaml:"type,omitempty"`
	Git  *GitLock `json:"git,omitempty" yaml:"git,omitempty"`
}

// GitLock is a package's place in git: repository, folder, ref and commit.
type GitLock struct {
	Repo      string `json:"repo,omitempty" yaml:"repo,omitempty"`
	Directory string `json:"directory,omitempty" yaml:"directory,omitempty"`
	Ref       string `json:"ref,omitempty" yaml:"ref,omitempty"`
	Commit    string `json:"commit,omitempty" yaml:"commit,omitempty"`
}

// Condition is a Kptfile status condition.
type Condition struct {
	Type    string `json:"type" yaml:"type"`
	Status  string `json:"status" yaml:"status"`
	Reason  string `json:"reason,omitempty" yaml:"reason,omitempty"`
	Message string `json:"message,omitempty" yaml:"message,omitempty"`
}

// Time is a Kubernetes timestamp: RFC 3339 in UTC to the second, null when
// zero.
type Time struct{ time.Time }

// MarshalJSON writes the time as Kubernetes does.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339, s)
	t.Time = parsed
	return err
}
