// Package v1alpha1 defines kptkit's own kinds (group fn.kptkit.dev, version
// v1alpha1): the typed functionConfigs of the functions and the resources they
// read and write, each with Default and Validate where it is a config.
package v1alpha1

import "github.com/kptkit/kptkit/pkg/api/meta"

const (
	// Group is the API group of kptkit's kinds.
	Group = "fn.kptkit.dev"
	// Version is the API version of kptkit's kinds.
	Version = "v1alpha1"
	// APIVersion is Group/Version.
	APIVersion = Group + "/" + Version

	// AnnotationInCluster marks an item as an object of the management
	// cluster: an input that functions read and never change.
	AnnotationInCluster = "kptkit.dev/in-cluster"
)

// Annotations `kptkit variants render` writes on a downstream package's
// root Kptfile: who owns the package, and what it was rendered from.
const (
	// AnnotationOwner names the PackageVariant that owns the package:
	// <namespace>/<name>. Packages without it are never changed or removed
	// unless a variant adopts them.
	AnnotationOwner = "kptkit.dev/owner"
	// AnnotationVariantSet names the PackageVariantSet whose child owns the
	// package: <namespace>/<name>.
	AnnotationVariantSet = "kptkit.dev/variant-set"
	// AnnotationDeletionPolicy is "orphan" when the package is to be released,
	// not removed, once its variant is gone (Porch's default is delete).
	AnnotationDeletionPolicy = "kptkit.dev/deletion-policy"
	// AnnotationRendered is a digest of the package's files as kptkit wrote
	// them (this annotation's own value zeroed): while it holds, nobody has
	// edited the package since, and an update takes the upstream's as is.
	AnnotationRendered = "kptkit.dev/rendered"
	// AnnotationInputs is a digest of what the package was rendered from
	// (the tool, the upstream revision, the variant, the cluster objects it
	// injects): a run with the same inputs over unedited files skips it.
	AnnotationInputs = "kptkit.dev/inputs"
	// AnnotationDownstream is where the variant wrote the package in the
	// output (<repo>/<package>): the package is the owner's only there, and
	// a copy elsewhere is no variant's to update, prune or release.
	AnnotationDownstream = "kptkit.dev/downstream"
	// AnnotationCommit, on a PackageVariant in the status of a run in git
	// (variants render --git), is the last commit kptkit made on the
	// PackageRevision its downstreamTargets name: a draft whose head no
	// longer descends from it had its history rewritten under kptkit.
	AnnotationCommit = "kptkit.dev/commit"
)

// Kinds of kptkit's functionConfigs.
const (
	KindSetPackageContext = "SetPackageContext"
	KindPrependPipeline   = "PrependPipeline"
	KindInjectConfig      = "InjectConfig"
	KindApplyStack        = "ApplyStack"
	KindResolveDeps       = "ResolveDeps"
)

// Kinds of kptkit's resources.
const (
	KindStack            = "Stack"
	KindCatalogPackage   = "CatalogPackage"
	KindInstalledPackage = "InstalledPackage"
	KindPackageInstall   = "PackageInstall"
	KindInstallPlan      = "InstallPlan"
)

// TypeMeta and ObjectMeta are the shared metadata (pkg/api/meta), named here
// too so that kptkit's kinds read as one package.
type (
	TypeMeta   = meta.TypeMeta
	ObjectMeta = meta.ObjectMeta
)

// The types of kptkit's kinds, for matching items and functionConfigs.
var (
	TypeSetPackageContext = TypeMeta{APIVersion: APIVersion, Kind: KindSetPackageContext}
	TypePrependPipeline   = TypeMeta{APIVersion: APIVersion, Kind: KindPrependPipeline}
	TypeInjectConfig      = TypeMeta{APIVersion: APIVersion, Kind: KindInjectConfig}
	TypeApplyStack        = TypeMeta{APIVersion: APIVersion, Kind: KindApplyStack}
	TypeResolveDeps       = TypeMeta{APIVersion: APIVersion, Kind: KindResolveDeps}
	TypeStack             = TypeMeta{APIVersion: APIVersion, Kind: KindStack}
	TypeCatalogPackage    = TypeMeta{APIVersion: APIVersion, Kind: KindCatalogPackage}
	TypeInstalledPackage  = TypeMeta{APIVersion: APIVersion, Kind: KindInstalledPackage}
	TypePackageInstall    = TypeMeta{APIVersion: APIVersion, Kind: KindPackageInstall}
	TypeInstallPlan       = TypeMeta{APIVersion: APIVersion, Kind: KindInstallPlan}

	// TypeConfigMap is the core ConfigMap.
	TypeConfigMap = meta.TypeConfigMap
)
