package inject

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/result"
)

// Selector chooses the object that fills an injection point.
type Selector = v1alpha1.InjectionSelector

// Request is what to inject, whatever config it came from: the injectors in
// order, the namespace whose objects are seen, and in-cluster objects given
// inline (beside the ResourceList's in-cluster items).
type Request struct {
	Injectors []Selector
	// Namespace is the scope; "" means "default".
	Namespace string
	Objects   []*yaml.RNode
	// Pool holds in-cluster objects indexed beforehand (NewPool), seen
	// beside the ResourceList's in-cluster items and Objects.
	Pool *Pool
}

// scope returns the namespace whose objects the request sees.
func (r Request) scope() string { return orDefault(r.Namespace) }

// orDefault is the namespace ns stands for: "" is "default".
func orDefault(ns string) string {
	if ns == "" {
		return v1alpha1.DefaultNamespace
	}
	return ns
}

// RequestFrom reads the request out of a functionConfig: a PackageVariant
// (spec.injectors, scope metadata.namespace) or an InjectConfig (injectors,
// namespace, objects). Problems come back as results, all of them.
func RequestFrom(c *krmfn.Config) (Request, []result.Result) {
	kind, ok, bad := c.Match(porch.TypePackageVariant, v1alpha1.TypeInjectConfig)
	if !ok {
		return Request{}, []result.Result{bad}
	}
	var (
		req  Request
		rs   []result.Result
		errs []decode.Error
	)
	if kind == porch.TypePackageVariant {
		var pv porch.PackageVariant
		rs = c.Decode(&pv, decode.Options{})
		req.Injectors = pv.Spec.Injectors
		req.Namespace = pv.Metadata.Namespace
		errs = v1alpha1.ValidateInjectors(req.Injectors, "spec.injectors")
	} else {
		var ic v1alpha1.InjectConfig
		rs = c.Decode(&ic, decode.Options{KnownFields: true})
		ic.Default()
		req = Request{Injectors: ic.Injectors, Namespace: ic.Namespace, Objects: ic.Objects}
		errs = ic.Validate()
	}
	for _, err := range errs {
		// Porch's voice: `spec.injectors[1].name must not be empty`.
		rs = append(rs, c.Errorf(err.Path, "%s: %s %s", c, err.Path, err.Msg))
	}
	req.Namespace = req.scope()
	return req, rs
}
