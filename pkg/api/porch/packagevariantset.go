package porch

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/meta"
)

// PackageVariantSet (config.porch.kpt.dev/v1alpha2) fans one upstream package
// out to many downstream targets: one PackageVariant per target, each made
// from the target's template.
type PackageVariantSet struct {
	meta.TypeMeta `yaml:",inline"`
	Metadata      meta.ObjectMeta       `yaml:"metadata,omitempty"`
	Spec          PackageVariantSetSpec `yaml:"spec,omitempty"`
}

// PackageVariantSetSpec is the upstream to clone and the targets to clone it to.
type PackageVariantSetSpec struct {
	Upstream *Upstream `yaml:"upstream,omitempty"`
	Targets  []Target  `yaml:"targets,omitempty"`
}

// Target selects downstream targets in exactly one way (Repositories,
// RepositorySelector or ObjectSelector) and says how to make each target's
// PackageVariant.
type Target struct {
	Repositories       []RepositoryTarget      `yaml:"repositories,omitempty"`
	RepositorySelector *LabelSelector          `yaml:"repositorySelector,omitempty"`
	ObjectSelector     *ObjectSelector         `yaml:"objectSelector,omitempty"`
	Template           *PackageVariantTemplate `yaml:"template,omitempty"`
}

// RepositoryTarget names a Repository and the packages to create in it (the
// upstream package's name when PackageNames is empty).
type RepositoryTarget struct {
	Name         string   `yaml:"name"`
	PackageNames []string `yaml:"packageNames,omitempty"`
}

// LabelSelector is Kubernetes' label selector (metav1.LabelSelector): every
// matchLabels entry and every matchExpressions requirement must hold.
type LabelSelector struct {
	MatchLabels      map[string]string          `yaml:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `yaml:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one matchExpressions entry: a key, an operator
// (In, NotIn, Exists, DoesNotExist) and values.
type LabelSelectorRequirement struct {
	Key      string   `yaml:"key"`
	Operator string   `yaml:"operator"`
	Values   []string `yaml:"values,omitempty"`
}

// ObjectSelector selects objects of one apiVersion and kind by labels and,
// optionally, by name.
type ObjectSelector struct {
	LabelSelector `yaml:",inline"`
	APIVersion    string  `yaml:"apiVersion,omitempty"`
	Kind          string  `yaml:"kind,omitempty"`
	Name          *string `yaml:"name,omitempty"`
}

// PackageVariantTemplate says how to make a target's PackageVariant spec: each
// field has a plain value and, for most, a CEL expression (…Expr) that wins.
type PackageVariantTemplate struct {
	Downstream      *DownstreamTemplate         `yaml:"downstream,omitempty"`
	AdoptionPolicy  *string                     `yaml:"adoptionPolicy,omitempty"`
	DeletionPolicy  *string                     `yaml:"deletionPolicy,omitempty"`
	Labels          map[string]string           `yaml:"labels,omitempty"`
	LabelExprs      []MapExpr                   `yaml:"labelExprs,omitempty"`
	Annotations     map[string]string           `yaml:"annotations,omitempty"`
	AnnotationExprs []MapExpr                   `yaml:"annotationExprs,omitempty"`
	PackageContext  *PackageContextTemplate     `yaml:"packageContext,omitempty"`
	Pipeline        *PipelineTemplate           `yaml:"pipeline,omitempty"`
	Injectors       []InjectionSelectorTemplate `yaml:"injectors,omitempty"`
}

// DownstreamTemplate overrides the target's repository and package names.
type DownstreamTemplate struct {
	Repo        *string `yaml:"repo,omitempty"`
	Package     *string `yaml:"package,omitempty"`
	RepoExpr    *string `yaml:"repoExpr,omitempty"`
	PackageExpr *string `yaml:"packageExpr,omitempty"`
}

// PackageContextTemplate makes spec.packageContext: plain data and keys,
// overlaid by the expressions' results.
type PackageContextTemplate struct {
	Data           map[string]string `yaml:"data,omitempty"`
	RemoveKeys     []string          `yaml:"removeKeys,omitempty"`
	DataExprs      []MapExpr         `yaml:"dataExprs,omitempty"`
	RemoveKeyExprs []string          `yaml:"removeKeyExprs,omitempty"`
}

// InjectionSelectorTemplate makes one spec.injectors entry: exactly one of
// Name and NameExpr.
type InjectionSelectorTemplate struct {
	Group    *string `yaml:"group,omitempty"`
	Version  *string `yaml:"version,omitempty"`
	Kind     *string `yaml:"kind,omitempty"`
	Name     *string `yaml:"name,omitempty"`
	NameExpr *string `yaml:"nameExpr,omitempty"`
}

// MapExpr makes one map entry: at most one of Key and KeyExpr, at most one of
// Value and ValueExpr.
type MapExpr struct {
	Key       *string `yaml:"key,omitempty"`
	Value     *string `yaml:"value,omitempty"`
	KeyExpr   *string `yaml:"keyExpr,omitempty"`
	ValueExpr *string `yaml:"valueExpr,omitempty"`
}

// PipelineTemplate makes spec.pipeline. Its entries are Kptfile function
// entries plus configMapExprs, kept as YAML so that every field is copied;
// FunctionTemplate reads the fields that need checking or computing.
type PipelineTemplate struct {
	Mutators   []*yaml.Node `yaml:"mutators,omitempty"`
	Validators []*yaml.Node `yaml:"validators,omitempty"`
}

// FunctionTemplate is what the template reads of a pipeline entry.
type FunctionTemplate struct {
	Name           string            `yaml:"name,omitempty"`
	Image          string            `yaml:"image,omitempty"`
	Exec           string            `yaml:"exec,omitempty"`
	ConfigMap      map[string]string `yaml:"configMap,omitempty"`
	ConfigMapExprs []MapExpr         `yaml:"configMapExprs,omitempty"`
}

// Repository (config.porch.kpt.dev/v1alpha1) is a package repository
// registered with Porch. Templates read only its metadata; the fleet reads
// its git location.
type Repository struct {
	meta.TypeMeta `yaml:",inline"`
	Metadata      meta.ObjectMeta `yaml:"metadata,omitempty"`
	Spec          RepositorySpec  `yaml:"spec,omitempty"`
}

// RepositorySpec is where a Repository's packages live.
type RepositorySpec struct {
	Type       string         `yaml:"type,omitempty"`
	Deployment bool           `yaml:"deployment,omitempty"`
	Git        *GitRepository `yaml:"git,omitempty"`
}

// GitRepository is a Repository's git location: the repository, the branch
// its packages' heads are on (default main), and the folder holding them.
type GitRepository struct {
	Repo      string `yaml:"repo,omitempty"`
	Branch    string `yaml:"branch,omitempty"`
	Directory string `yaml:"directory,omitempty"`
	// CreateBranch makes Porch create the branch when the repository
	// lacks it ("Initial commit: Creating main branch").
	CreateBranch bool `yaml:"createBranch,omitempty"`
	// Author and Email sign the commits Porch makes in the repository.
	Author string `yaml:"author,omitempty"`
	Email  string `yaml:"email,omitempty"`
}

// DefaultBranch is the branch of a git Repository that names none.
const DefaultBranch = "main"
