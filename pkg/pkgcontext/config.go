package pkgcontext

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/result"
)

// Accepted functionConfig kinds.
var (
	KindPackageVariant    = porch.TypePackageVariant
	KindSetPackageContext = v1alpha1.TypeSetPackageContext
)

// Edit is what to do to the package context, whatever config it came from.
type Edit struct {
	Data       map[string]string
	RemoveKeys []string
	Create     bool
}

// empty reports whether the edit has nothing to set or remove.
func (e Edit) empty() bool { return len(e.Data) == 0 && len(e.RemoveKeys) == 0 }

// EditFrom reads the edit out of a functionConfig: a PackageVariant's
// spec.packageContext, a SetPackageContext, or a ConfigMap's data. A nil
// config is an empty edit. Problems come back as results, all of them.
func EditFrom(c *krmfn.Config) (Edit, []result.Result) {
	if c == nil {
		return Edit{}, nil
	}
	kind, ok, bad := c.Match(KindPackageVariant, KindSetPackageContext, krmfn.ConfigMap)
	if !ok {
		return Edit{}, []result.Result{bad}
	}
	var (
		e    Edit
		rs   []result.Result
		errs []decode.Error
	)
	switch kind {
	case KindPackageVariant:
		var pv porch.PackageVariant
		rs = c.Decode(&pv, decode.Options{})
		if pv.Metadata.Name == "" {
			rs = append(rs, c.Errorf("metadata.name", "%s: metadata.name is required", c))
		}
		if pc := pv.Spec.PackageContext; pc != nil {
			e = Edit{Data: pc.Data, RemoveKeys: pc.RemoveKeys}
			errs = v1alpha1.ValidateContextKeys(pc.Data, pc.RemoveKeys, "spec.packageContext.data", "spec.packageContext.removeKeys")
		}
	case KindSetPackageContext:
		var spc v1alpha1.SetPackageContext
		rs = c.Decode(&spc, decode.Options{KnownFields: true})
		spc.Default()
		e = Edit{Data: spc.Data, RemoveKeys: spc.RemoveKeys, Create: spc.Create}
		errs = spc.Validate()
	default:
		var cm struct {
			Data map[string]string `yaml:"data"`
		}
		if d := c.Node.Field("data"); d == nil || yaml.IsMissingOrNull(d.Value) {
			rs = append(rs, c.Errorf("data", "%s has no data: its data are the keys to set", c))
		}
		rs = append(rs, c.Decode(&cm, decode.Options{})...)
		e = Edit{Data: cm.Data}
		errs = v1alpha1.ValidateContextKeys(cm.Data, nil, "data", "")
	}
	// Kubernetes' texts lead with the field (`data: Invalid value: ...`),
	// and kpt prints a result's field before its message: the field stays
	// in the message alone, or kpt would show `data: data: Invalid value`.
	for _, err := range errs {
		rs = append(rs, c.Errorf("", "%s", err))
	}
	return e, rs
}
