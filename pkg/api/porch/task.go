package porch

// Task is what made a package revision's content (a clone, an edit, an
// upgrade, an init) or changed it (a render). Porch records one in the `kpt:`
// annotation of each commit it makes and lists them in spec.tasks; the JSON
// field names, their order and their omitempty are Porch's, so that an
// annotation written here is byte for byte Porch's.
type Task struct {
	Type    string       `json:"type" yaml:"type"`
	Init    *InitTask    `json:"init,omitempty" yaml:"init,omitempty"`
	Clone   *CloneTask   `json:"clone,omitempty" yaml:"clone,omitempty"`
	Edit    *EditTask    `json:"edit,omitempty" yaml:"edit,omitempty"`
	Upgrade *UpgradeTask `json:"upgrade,omitempty" yaml:"upgrade,omitempty"`
}

// Task types.
const (
	TaskInit    = "init"
	TaskClone   = "clone"
	TaskEdit    = "edit"
	TaskUpgrade = "upgrade"
	TaskRender  = "render"
	TaskPush    = "push"
)

// IsFirstTask reports whether a task type starts a revision (Porch's
// IsValidFirstTaskType): init, edit, clone, upgrade.
func IsFirstTask(t string) bool {
	return t == TaskInit || t == TaskEdit || t == TaskClone || t == TaskUpgrade
}

// InitTask makes a new empty package.
type InitTask struct {
	Subpackage  string   `json:"subpackage,omitempty" yaml:"subpackage,omitempty"`
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
	Keywords    []string `json:"keywords,omitempty" yaml:"keywords,omitempty"`
	Site        string   `json:"site,omitempty" yaml:"site,omitempty"`
}

// CloneTask clones an upstream package.
type CloneTask struct {
	Upstream UpstreamPackage `json:"upstreamRef,omitempty" yaml:"upstreamRef,omitempty"`
}

// UpstreamPackage is a clone's source: a registered PackageRevision
// (UpstreamRef), or a git or OCI location.
type UpstreamPackage struct {
	Type        string              `json:"type,omitempty" yaml:"type,omitempty"`
	Git         *GitPackage         `json:"git,omitempty" yaml:"git,omitempty"`
	Oci         *OciPackage         `json:"oci,omitempty" yaml:"oci,omitempty"`
	UpstreamRef *PackageRevisionRef `json:"upstreamRef,omitempty" yaml:"upstreamRef,omitempty"`
}

// GitPackage is a package in a git repository not registered with Porch.
type GitPackage struct {
	Repo      string    `json:"repo" yaml:"repo"`
	Ref       string    `json:"ref" yaml:"ref"`
	Directory string    `json:"directory" yaml:"directory"`
	SecretRef SecretRef `json:"secretRef,omitempty" yaml:"secretRef,omitempty"`
}

// SecretRef names a Secret holding credentials.
type SecretRef struct {
	Name string `json:"name" yaml:"name"`
}

// OciPackage is a package in an OCI image.
type OciPackage struct {
	Image string `json:"image" yaml:"image"`
}

// PackageRevisionRef names a PackageRevision.
type PackageRevisionRef struct {
	Name string `json:"name" yaml:"name"`
}

// EditTask starts a new revision from a published one of the same package.
type EditTask struct {
	Source *PackageRevisionRef `json:"sourceRef,omitempty" yaml:"sourceRef,omitempty"`
}

// UpgradeTask merges a new upstream revision into a downstream package.
type UpgradeTask struct {
	OldUpstream             PackageRevisionRef `json:"oldUpstreamRef,omitempty" yaml:"oldUpstreamRef,omitempty"`
	NewUpstream             PackageRevisionRef `json:"newUpstreamRef,omitempty" yaml:"newUpstreamRef,omitempty"`
	LocalPackageRevisionRef PackageRevisionRef `json:"localPackageRevisionRef,omitempty" yaml:"localPackageRevisionRef,omitempty"`
	Strategy                string             `json:"strategy,omitempty" yaml:"strategy,omitempty"`
}

// StrategyResourceMerge is the upgrade strategy the PackageVariant
// controller asks for.
const StrategyResourceMerge = "resource-merge"
