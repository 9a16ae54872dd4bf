// Package meta holds the Kubernetes object metadata that every API package
// here shares (kptkit's kinds and Porch's): apiVersion and kind, and the part
// of metadata the functions read.
package meta

// TypeMeta is the apiVersion and kind of an object.
type TypeMeta struct {
	APIVersion string `yaml:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty"`
}

// Describe names the type for messages: `Kind (apiVersion)`.
func (t TypeMeta) Describe() string { return t.Kind + " (" + t.APIVersion + ")" }

// ObjectMeta is the part of Kubernetes' metadata the functions read.
type ObjectMeta struct {
	Name        string            `yaml:"name,omitempty"`
	Namespace   string            `yaml:"namespace,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// DefaultNamespace is the namespace of an object, or of a scope, that names
// none: Kubernetes' "default".
const DefaultNamespace = "default"

// TypeConfigMap is the core ConfigMap.
var TypeConfigMap = TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
