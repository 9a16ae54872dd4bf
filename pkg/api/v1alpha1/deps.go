package v1alpha1

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/decode"
)

// Names resolve-deps writes and reads.
const (
	// InstallPlanName is the name of the InstallPlan item resolve-deps writes.
	InstallPlanName = "install-plan"
	// InstallPlanFile is the file of the InstallPlan item.
	InstallPlanFile = "install-plan.yaml"
	// LabelResolvedPackage marks a PackageVariant that resolve-deps wrote; its
	// value is the package the variant installs.
	LabelResolvedPackage = "kptkit.dev/resolved-package"
)

// Actions of an InstallPlan step.
const (
	ActionInstall = "install"
	ActionUpgrade = "upgrade"
	ActionKeep    = "keep"
	ActionSkip    = "skip"
	ActionDelete  = "delete"
)

// Verbs of ResolveDeps.operation.
const (
	OperationInstall = "install"
	OperationUpgrade = "upgrade"
	OperationDelete  = "delete"
)

// CatalogPackage is a package a repository offers, with every version it
// offers and what each version depends on, provides and requires.
type CatalogPackage struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta         `yaml:"metadata,omitempty"`
	Spec     CatalogPackageSpec `yaml:"spec,omitempty"`
}

// CatalogPackageSpec is what a repository offers of one package.
type CatalogPackageSpec struct {
	Repo          string           `yaml:"repo,omitempty"`
	LatestVersion string           `yaml:"latestVersion,omitempty"`
	Versions      []CatalogVersion `yaml:"versions,omitempty"`
}

// CatalogVersion is one version of a catalog package. Commit and Digest
// say what an index read it from (a git commit, or the sha256 of a folder's
// files), so that an unchanged version is not read again.
type CatalogVersion struct {
	Version      string       `yaml:"version,omitempty"`
	Commit       string       `yaml:"commit,omitempty"`
	Digest       string       `yaml:"digest,omitempty"`
	Dependencies []Dependency `yaml:"dependencies,omitempty"`
	Provides     Provides     `yaml:"provides,omitempty"`
	Requires     Requires     `yaml:"requires,omitempty"`
	// Parameters are the parameters the version declares (its Parameters
	// items): resolve-deps writes their values into the package context of
	// the version's PackageVariant.
	Parameters []Parameter `yaml:"parameters,omitempty"`
}

// Dependency is a package and the semver range of it that is needed; an
// empty version is no range. Repo names the repository to take it from
// when several offer it; Reason says what made it a dependency.
type Dependency struct {
	Package string `yaml:"package,omitempty"`
	Repo    string `yaml:"repo,omitempty"`
	Version string `yaml:"version,omitempty"`
	Reason  string `yaml:"reason,omitempty"`
}

// Provides is what a package version brings: APIs (CRDs it installs) and
// Hub-style capabilities.
type Provides struct {
	APIs         []API    `yaml:"apis,omitempty"`
	Capabilities []string `yaml:"capabilities,omitempty"`
}

// API is a Kubernetes API a package provides: its group, version, kind and
// resource (the plural name RBAC rules use).
type API struct {
	Group    string `yaml:"group,omitempty"`
	Version  string `yaml:"version,omitempty"`
	Kind     string `yaml:"kind,omitempty"`
	Resource string `yaml:"resource,omitempty"`
}

// Requires is what a package version needs from the packages installed
// before it, or from the environment: APIs (their provider is chosen when
// resolving) and Hub-style capabilities.
type Requires struct {
	APIs         []RequiredAPI `yaml:"apis,omitempty"`
	Capabilities []string      `yaml:"capabilities,omitempty"`
}

// RequiredAPI is an API a package version uses: a group and a kind (from
// an item) or a resource (from an RBAC rule), and what uses it.
type RequiredAPI struct {
	Group    string `yaml:"group"`
	Kind     string `yaml:"kind,omitempty"`
	Resource string `yaml:"resource,omitempty"`
	Reason   string `yaml:"reason,omitempty"`
}

// InstalledPackage is one entry of the inventory: a package installed in a
// cluster and namespace, at a version, and the ranges it holds on its
// dependencies.
type InstalledPackage struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta             `yaml:"metadata,omitempty"`
	Spec     InstalledPackageSpec   `yaml:"spec,omitempty"`
	Status   InstalledPackageStatus `yaml:"status,omitempty"`
}

// InstalledPackageStatus is what the installed package reports: its
// outputs (Hub's), which the parameters of packages installed after it
// may use as ${package:name}.
type InstalledPackageStatus struct {
	Outputs []Output `yaml:"outputs,omitempty"`
}

// Output is one output of an installed package.
type Output struct {
	Name  string           `yaml:"name"`
	Value decode.AnyScalar `yaml:"value"`
}

// InstalledPackageSpec is what is installed where.
type InstalledPackageSpec struct {
	Cluster               string `yaml:"cluster,omitempty"`
	Namespace             string `yaml:"namespace,omitempty"`
	Package               string `yaml:"package,omitempty"`
	Version               string `yaml:"version,omitempty"`
	InstalledAsDependency bool   `yaml:"installedAsDependency,omitempty"`
	// Dependencies are the ranges the installed package holds. When the
	// field is absent, those of its catalog version count.
	Dependencies []Dependency `yaml:"dependencies,omitempty"`
}

// PackageInstall asks for a package to be installed, at an exact version or
// within a semver range (empty: the latest).
type PackageInstall struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta           `yaml:"metadata,omitempty"`
	Spec     PackageInstallSpec   `yaml:"spec,omitempty"`
	Status   PackageInstallStatus `yaml:"status,omitempty"`
}

// PackageInstallSpec is the request.
type PackageInstallSpec struct {
	Package string `yaml:"package,omitempty"`
	Repo    string `yaml:"repo,omitempty"`
	Version string `yaml:"version,omitempty"`
}

// PackageInstallStatus is what resolve-deps chose.
type PackageInstallStatus struct {
	Version string `yaml:"version,omitempty"`
}

// Validate checks a PackageInstall's spec.
func (p *PackageInstall) Validate() []decode.Error {
	if strings.TrimSpace(p.Spec.Package) == "" {
		return []decode.Error{{Path: "spec.package", Msg: "is required: it names the package to install"}}
	}
	return nil
}

// InstallPlan is what resolve-deps decided: the steps in install order and
// the order to uninstall in.
type InstallPlan struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta        `yaml:"metadata,omitempty"`
	Status   InstallPlanStatus `yaml:"status"`
}

// InstallPlanStatus holds the plan.
type InstallPlanStatus struct {
	Steps          []PlanStep `yaml:"steps"`
	UninstallOrder []string   `yaml:"uninstallOrder"`
}

// PlanStep is one package of the plan: what happens to it and why.
type PlanStep struct {
	Package    string   `yaml:"package"`
	Version    string   `yaml:"version,omitempty"`
	Action     string   `yaml:"action"`
	RequiredBy []string `yaml:"requiredBy"`
	Reason     string   `yaml:"reason,omitempty"`
	// Parameters are the package's parameters: written into its
	// PackageVariant's package context, or, when secret, needed out of band.
	Parameters []StepParameter `yaml:"parameters,omitempty"`
}

// StepParameter is one parameter of a plan step: its value (never for a
// secret) and where the value came from.
type StepParameter struct {
	Name   string `yaml:"name"`
	Value  string `yaml:"value,omitempty"`
	Secret bool   `yaml:"secret,omitempty"`
	Source string `yaml:"source"`
}

// ResolveDeps is resolve-deps' functionConfig.
type ResolveDeps struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta `yaml:"metadata,omitempty"`
	// ClusterPrefix starts the names of the PackageVariants and downstream
	// packages written (`<clusterPrefix><package>`).
	ClusterPrefix string `yaml:"clusterPrefix,omitempty"`
	// DownstreamRepo is the repository the package being installed lives in.
	DownstreamRepo string `yaml:"downstreamRepo,omitempty"`
	// Cluster selects whose InstalledPackages count (default: all).
	Cluster       string    `yaml:"cluster,omitempty"`
	Prereleases   bool      `yaml:"prereleases,omitempty"`
	AllowUpgrades bool      `yaml:"allowUpgrades,omitempty"`
	Discover      *Discover `yaml:"discover,omitempty"`
	// Environment lists the capabilities the environment provides.
	Environment []string `yaml:"environment,omitempty"`
	// Lifecycle is Hub CLI's lifecycle (optional, mandatory,
	// requires.optional), or a list of them, base stack first.
	Lifecycle *yaml.Node `yaml:"lifecycle,omitempty"`
	// Parameters are the user's top parameter layer, a nested map addressed
	// by dotted paths (conditional requirements test them too).
	Parameters map[string]any `yaml:"parameters,omitempty"`
	// Providers chooses, per API group, the package that provides it when
	// several catalog packages do and none is installed.
	Providers map[string]string `yaml:"providers,omitempty"`
	// Operation is `install` (default), `upgrade <package> [<version>]` or
	// `delete <package>`.
	Operation string `yaml:"operation,omitempty"`
}

// Discover says where roots are found beyond PackageInstalls.
type Discover struct {
	APIs *bool `yaml:"apis,omitempty"`
	RBAC *bool `yaml:"rbac,omitempty"`
}

// Lifecycle is one layer of Hub CLI's stack lifecycle.
type Lifecycle struct {
	Optional  []string       `yaml:"optional,omitempty"`
	Mandatory []string       `yaml:"mandatory,omitempty"`
	Requires  RequiresTuning `yaml:"requires,omitempty"`
}

// RequiresTuning softens requirements: `cap`, `cap:package`,
// `param.path:package`, and the erasers `:`, `req:` and `:package`.
type RequiresTuning struct {
	Optional []string `yaml:"optional,omitempty"`
}

// Operation is a parsed ResolveDeps.operation.
type Operation struct {
	Verb    string
	Package string
	Version string
}

// Default fills in the defaults: discovery of APIs and RBAC on, operation install.
func (c *ResolveDeps) Default() {
	t := true
	if c.Discover == nil {
		c.Discover = &Discover{}
	}
	if c.Discover.APIs == nil {
		c.Discover.APIs = &t
	}
	if c.Discover.RBAC == nil {
		c.Discover.RBAC = &t
	}
	if strings.TrimSpace(c.Operation) == "" {
		c.Operation = OperationInstall
	}
}

// Validate checks the operation, the lifecycle layers and the environment.
func (c *ResolveDeps) Validate() []decode.Error {
	var errs []decode.Error
	if _, err := ParseOperation(c.Operation); err != nil {
		errs = append(errs, decode.Error{Path: "operation", Msg: err.Error()})
	}
	_, lerrs := c.Layers()
	errs = append(errs, lerrs...)
	for i, e := range c.Environment {
		if strings.TrimSpace(e) == "" {
			errs = append(errs, decode.Error{Path: fmt.Sprintf("environment[%d]", i), Msg: "must not be empty"})
		}
	}
	for _, g := range slices.Sorted(maps.Keys(c.Providers)) {
		if strings.TrimSpace(c.Providers[g]) == "" {
			errs = append(errs, decode.Error{Path: "providers." + g, Msg: "must name the package that provides the API group"})
		}
	}
	if p := c.ClusterPrefix; p != "" && !nameChars(p) {
		errs = append(errs, decode.Error{Path: "clusterPrefix", Msg: fmt.Sprintf(
			"%q must hold only lower-case letters, digits, '-' and '.' (it starts PackageVariant names)", p)})
	}
	return errs
}

// Layers returns the lifecycle as its layers, base stack first: one layer
// when lifecycle is a mapping, none when it is absent.
func (c *ResolveDeps) Layers() ([]Lifecycle, []decode.Error) {
	n := c.Lifecycle
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == yaml.NodeTagNull) {
		return nil, nil
	}
	opts := decode.Options{KnownFields: true}
	switch n.Kind {
	case yaml.MappingNode:
		out := make([]Lifecycle, 1)
		return out, decode.Into(n, &out[0], opts, "lifecycle")
	case yaml.SequenceNode:
		out := make([]Lifecycle, len(n.Content))
		var errs []decode.Error
		for i, layer := range n.Content {
			errs = append(errs, decode.Into(layer, &out[i], opts, fmt.Sprintf("lifecycle[%d]", i))...)
		}
		return out, errs
	default:
		return nil, []decode.Error{{Path: "lifecycle", Msg: "must be a mapping (optional, mandatory, requires) or a list of them, base stack first"}}
	}
}

// ParseOperation reads `install`, `upgrade <package> [<version>]` (no
// version: the latest allowed) or `delete <package>`.
func ParseOperation(s string) (Operation, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Operation{Verb: OperationInstall}, nil
	}
	op := Operation{Verb: f[0]}
	switch {
	case f[0] == OperationInstall && len(f) == 1:
	case f[0] == OperationUpgrade && len(f) == 3:
		op.Package, op.Version = f[1], f[2]
	case f[0] == OperationUpgrade && len(f) == 2:
		op.Package = f[1]
	case f[0] == OperationDelete && len(f) == 2:
		op.Package = f[1]
	case f[0] == OperationUpgrade:
		return op, fmt.Errorf("%q: upgrade takes a package and, optionally, a version: `upgrade <package> [<version>]`", s)
	case f[0] == OperationDelete:
		return op, fmt.Errorf("%q: delete takes one package: `delete <package>`", s)
	case f[0] == OperationInstall:
		return op, fmt.Errorf("%q: install takes no arguments (it installs the package's PackageInstalls and discovered dependencies)", s)
	default:
		return op, fmt.Errorf("unknown operation %q: use `install`, `upgrade <package> [<version>]` or `delete <package>`", s)
	}
	return op, nil
}

// ValidName reports whether s can name a Kubernetes object such as the
// PackageVariants resolve-deps writes: lower-case letters, digits, '-' and
// '.', at most 253 characters, neither starting nor ending with '-' or '.'.
func ValidName(s string) bool {
	if s == "" || len(s) > 253 || !nameChars(s) {
		return false
	}
	return s[0] != '-' && s[0] != '.' && s[len(s)-1] != '-' && s[len(s)-1] != '.'
}

// nameChars reports whether s holds only the characters of an object name.
func nameChars(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
