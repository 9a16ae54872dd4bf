// Package porch defines Porch's kinds as Porch writes them, for reading them
// out of a ResourceList and writing new ones: PackageVariant
// (config.porch.kpt.dev/v1alpha1), PackageVariantSet
// (config.porch.kpt.dev/v1alpha2), Repository (config.porch.kpt.dev/v1alpha1)
// and PackageRevision (porch.kpt.dev/v1alpha1).
package porch

import (
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/meta"
	"github.com/kptkit/kptkit/pkg/decode"
)

// API groups and versions of Porch's kinds.
const (
	ConfigGroup       = "config.porch.kpt.dev"
	ConfigV1alpha1    = ConfigGroup + "/v1alpha1"
	ConfigV1alpha2    = ConfigGroup + "/v1alpha2"
	Group             = "porch.kpt.dev"
	V1alpha1          = Group + "/v1alpha1"
	KindVariant       = "PackageVariant"
	KindVariantSet    = "PackageVariantSet"
	KindRepository    = "Repository"
	KindRevision      = "PackageRevision"
	LabelVariantSet   = ConfigGroup + "/packagevariantset"
	VariantFuncPrefix = "PackageVariant"
)

// The types of Porch's kinds, for matching items and functionConfigs.
var (
	TypePackageVariant    = meta.TypeMeta{APIVersion: ConfigV1alpha1, Kind: KindVariant}
	TypePackageVariantSet = meta.TypeMeta{APIVersion: ConfigV1alpha2, Kind: KindVariantSet}
	TypeRepository        = meta.TypeMeta{APIVersion: ConfigV1alpha1, Kind: KindRepository}
	TypePackageRevision   = meta.TypeMeta{APIVersion: V1alpha1, Kind: KindRevision}
)

// Adoption and deletion policies of a PackageVariant.
const (
	AdoptionPolicyAdoptExisting = "adoptExisting"
	AdoptionPolicyAdoptNone     = "adoptNone"
	DeletionPolicyDelete        = "delete"
	DeletionPolicyOrphan        = "orphan"
)

// PackageVariant asks for a downstream package cloned from an upstream one
// and adjusted: package context, pipeline functions, injected configuration.
type PackageVariant struct {
	meta.TypeMeta `yaml:",inline"`
	Metadata      meta.ObjectMeta    `yaml:"metadata,omitempty"`
	Spec          PackageVariantSpec `yaml:"spec,omitempty"`
}

// PackageVariantSpec is what a PackageVariant asks for.
type PackageVariantSpec struct {
	Upstream       *Upstream           `yaml:"upstream,omitempty"`
	Downstream     *Downstream         `yaml:"downstream,omitempty"`
	AdoptionPolicy string              `yaml:"adoptionPolicy,omitempty"`
	DeletionPolicy string              `yaml:"deletionPolicy,omitempty"`
	Labels         map[string]string   `yaml:"labels,omitempty"`
	Annotations    map[string]string   `yaml:"annotations,omitempty"`
	PackageContext *PackageContext     `yaml:"packageContext,omitempty"`
	Pipeline       *kptfile.Pipeline   `yaml:"pipeline,omitempty"`
	Injectors      []InjectionSelector `yaml:"injectors,omitempty"`
}

// Upstream names the package revision a variant is cloned from.
type Upstream struct {
	Repo          string           `yaml:"repo,omitempty"`
	Package       string           `yaml:"package,omitempty"`
	Revision      decode.AnyScalar `yaml:"revision,omitempty"`
	WorkspaceName string           `yaml:"workspaceName,omitempty"`
}

// Downstream names the package a variant creates.
type Downstream struct {
	Repo    string `yaml:"repo,omitempty"`
	Package string `yaml:"package,omitempty"`
}

// PackageContext is the data to add to, and the keys to remove from, the
// package context ConfigMap (kptfile.kpt.dev).
type PackageContext struct {
	Data       map[string]string `yaml:"data,omitempty"`
	RemoveKeys []string          `yaml:"removeKeys,omitempty"`
}

// InjectionSelector chooses the in-cluster object that fills an injection
// point: it applies to a point when each of its group, version and kind that
// is set equals the point's, and selects the object named Name.
type InjectionSelector struct {
	Group   *string `yaml:"group,omitempty"`
	Version *string `yaml:"version,omitempty"`
	Kind    *string `yaml:"kind,omitempty"`
	Name    string  `yaml:"name"`
}
