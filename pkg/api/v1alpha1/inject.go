package v1alpha1

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/meta"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// DefaultNamespace is the namespace of an object, or of a scope, that names
// none: Kubernetes' "default".
const DefaultNamespace = meta.DefaultNamespace

// InjectConfig fills a package's injection points (items annotated
// kpt.dev/config-injection) from in-cluster objects, as Porch does for a
// PackageVariant's spec.injectors. The objects are the ResourceList's
// in-cluster items plus the inline Objects.
type InjectConfig struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta `yaml:"metadata,omitempty"`
	// Injectors choose the object for each injection point, first hit wins.
	Injectors []InjectionSelector `yaml:"injectors,omitempty"`
	// Namespace is the only namespace whose objects are seen (default
	// "default"); an object with no namespace is in "default".
	Namespace string `yaml:"namespace,omitempty"`
	// Objects are in-cluster objects given inline.
	Objects []*yaml.RNode `yaml:"objects,omitempty"`
}

// InjectionSelector is Porch's (InjectConfig takes the same selectors as a
// PackageVariant's spec.injectors).
type InjectionSelector = porch.InjectionSelector

// Default puts the scope in the default namespace when none is given.
func (c *InjectConfig) Default() {
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
}

// Validate checks the injectors and the inline objects.
func (c *InjectConfig) Validate() []decode.Error {
	errs := ValidateInjectors(c.Injectors, "injectors")
	for i, o := range c.Objects {
		errs = append(errs, ValidateObject(o, fmt.Sprintf("objects[%d]", i))...)
	}
	return errs
}

// ValidateInjectors refuses injectors without a name, with Porch's text:
// `spec.injectors[1].name must not be empty`.
func ValidateInjectors(injectors []InjectionSelector, field string) []decode.Error {
	var errs []decode.Error
	for i, inj := range injectors {
		if inj.Name == "" {
			errs = append(errs, decode.Error{Path: fmt.Sprintf("%s[%d].name", field, i), Msg: "must not be empty"})
		}
	}
	return errs
}

// ValidateObject checks that an inline object is a mapping with the
// apiVersion, kind and metadata.name that identify it.
func ValidateObject(o *yaml.RNode, field string) []decode.Error {
	if o == nil || o.YNode().Kind != yaml.MappingNode {
		return []decode.Error{{Path: field, Msg: "must be a mapping (a Kubernetes object)"}}
	}
	var errs []decode.Error
	for _, p := range []fieldpath.Path{{"apiVersion"}, {"kind"}, {"metadata", "name"}} {
		if v, _ := fieldpath.String(o, p); v == "" {
			errs = append(errs, decode.Error{Path: field + "." + p.String(), Msg: "must be set"})
		}
	}
	return errs
}
