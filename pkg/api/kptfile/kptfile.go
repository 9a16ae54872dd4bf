// Package kptfile names kpt's own kinds and the annotations kpt, kustomize and
// the KRM Functions Specification put on items: the Kptfile, the package
// context ConfigMap, paths, indexes and local-config.
package kptfile

import (
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	// Group is the API group of the Kptfile.
	Group = "kpt.dev"
	// APIVersion is the Kptfile's current apiVersion.
	APIVersion = "kpt.dev/v1"
	// Kind is the Kptfile's kind.
	Kind = "Kptfile"
	// FileName is the name of a Kptfile on disk.
	FileName = "Kptfile"

	// ContextName is the name of the package context ConfigMap.
	ContextName = "kptfile.kpt.dev"
	// ContextFile is the file of the package context ConfigMap.
	ContextFile = "package-context.yaml"
)

// Annotations kpt and kustomize read and write on items.
const (
	AnnotationPath          = "config.kubernetes.io/path"
	AnnotationIndex         = "config.kubernetes.io/index"
	AnnotationInternalPath  = "internal.config.kubernetes.io/path"
	AnnotationInternalIndex = "internal.config.kubernetes.io/index"
	AnnotationLocalConfig   = "config.kubernetes.io/local-config"
	AnnotationFunction      = "config.kubernetes.io/function"

	// AnnotationConfigInjection marks an injection point.
	AnnotationConfigInjection = "kpt.dev/config-injection"
	// AnnotationInjectedResource names the source an injection point was filled from.
	AnnotationInjectedResource = "kpt.dev/injected-resource"
)

// IsBookkeeping reports whether an annotation is one kpt or kustomize adds
// while items travel through a pipeline: those of BookkeepingAnnotations, and
// every annotation under internal.config.kubernetes.io/, which the KRM
// Functions Specification reserves to orchestrators (kpt fn render adds
// package-path there, an absolute path).
func IsBookkeeping(key string) bool {
	return strings.HasPrefix(key, "internal.config.kubernetes.io/") || slices.Contains(BookkeepingAnnotations, key)
}

// BookkeepingAnnotations are the annotations kpt and kustomize add to items
// while they travel through a pipeline; they are not part of a resource's
// content.
var BookkeepingAnnotations = []string{
	AnnotationPath,
	AnnotationIndex,
	AnnotationInternalPath,
	AnnotationInternalIndex,
	"internal.config.kubernetes.io/id",
	"internal.config.kubernetes.io/seqindent",
	"internal.config.kubernetes.io/annotations-migration-resource-id",
	"internal.config.kubernetes.io/package-path",
	"config.k8s.io/id",
	"kustomize.config.k8s.io/id",
}

// Pipeline holds Kptfile function entries, kept as YAML so that every field
// of an entry (image, exec, configMap, configPath, selectors, ...) is copied.
type Pipeline struct {
	Mutators   []*yaml.Node `yaml:"mutators,omitempty"`
	Validators []*yaml.Node `yaml:"validators,omitempty"`
}

// Kpt's package lineage: where a package was cloned from (upstream) and the
// exact revision it was cloned or last updated at (upstreamLock), as `kpt pkg
// get` and `kpt pkg update` write them. The yaml tags and field order are
// kpt's, so that a value marshalled from these types reads as kpt writes it.
const (
	// OriginGit is the only upstream type kpt writes.
	OriginGit = "git"
	// StrategyResourceMerge is kpt's default update strategy: a three-way
	// merge of resources.
	StrategyResourceMerge = "resource-merge"

	// AnnotationUpstreamIdentifier is the annotation `kpt pkg get` and `kpt
	// pkg update` put on every resource: group|kind|namespace|name of the
	// resource in its upstream ("default" for no namespace).
	AnnotationUpstreamIdentifier = "internal.kpt.dev/upstream-identifier"
	// MergeComment starts the line comment kpt puts on a resource's
	// `metadata:` key (`metadata: # kpt-merge: <namespace>/<name>`), naming
	// the resource as its upstream names it.
	MergeComment = "kpt-merge:"
)

// Upstream is a Kptfile's `upstream`: the repository, folder and ref a
// package is cloned from, and how updates are merged.
type Upstream struct {
	Type           string `yaml:"type,omitempty"`
	Git            *Git   `yaml:"git,omitempty"`
	UpdateStrategy string `yaml:"updateStrategy,omitempty"`
}

// Git locates a package in a git repository.
type Git struct {
	Repo      string `yaml:"repo,omitempty"`
	Directory string `yaml:"directory,omitempty"`
	Ref       string `yaml:"ref,omitempty"`
}

// UpstreamLock is a Kptfile's `upstreamLock`: the commit the package was
// last cloned or updated from.
type UpstreamLock struct {
	Type string   `yaml:"type,omitempty"`
	Git  *GitLock `yaml:"git,omitempty"`
}

// GitLock is Git with the resolved commit.
type GitLock struct {
	Repo      string `yaml:"repo,omitempty"`
	Directory string `yaml:"directory,omitempty"`
	Ref       string `yaml:"ref,omitempty"`
	Commit    string `yaml:"commit,omitempty"`
}
