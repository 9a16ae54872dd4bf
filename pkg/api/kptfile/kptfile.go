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
