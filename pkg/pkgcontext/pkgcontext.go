// Package pkgcontext sets and removes keys of a kpt package's context, the
// ConfigMap kptfile.kpt.dev in package-context.yaml, as Porch does for a
// PackageVariant's spec.packageContext: a ResourceList and an Edit go in; the
// ConfigMap comes out changed in place (existing keys keep their place, new
// keys are appended in sorted order), or created when asked to.
package pkgcontext

import (
	"maps"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Function is set-package-context.
var Function = krmfn.Function{Name: "set-package-context", Run: Run}

// Run reads the edit from the functionConfig and applies it.
func Run(rl *resourcelist.ResourceList, _ krmfn.Env) error {
	e, rs := EditFrom(krmfn.ConfigOf(rl))
	if len(rs) > 0 {
		rl.AddResults(rs...)
		return nil
	}
	rl.AddResults(Apply(rl, e)...)
	return nil
}

var dataPath = fieldpath.Path{"data"}

// Apply sets, then removes, the edit's keys in the package context
// ConfigMap. With nothing to set or remove it requires nothing and changes
// nothing.
func Apply(rl *resourcelist.ResourceList, e Edit) []result.Result {
	if e.empty() {
		return nil
	}
	target, rs := find(rl)
	if len(rs) > 0 {
		return rs
	}
	if target == nil {
		if !e.Create {
			return []result.Result{result.Errorf("%q not found: the package has no ConfigMap %q at %s in its root (set create: true in a SetPackageContext to create it)",
				kptfile.ContextFile, kptfile.ContextName, kptfile.ContextFile).WithFile(kptfile.ContextFile, 0)}
		}
		if _, err := rl.Append(newContext(e), kptfile.ContextFile); err != nil {
			return []result.Result{result.Errorf("cannot create %s: %v", kptfile.ContextFile, err)}
		}
		return nil
	}
	data := fieldpath.Lookup(target.Node(), dataPath)
	if rs := checkData(target, data); len(rs) > 0 {
		return rs
	}
	apply(target.Edit(), e)
	return nil
}

// find returns the package context ConfigMap: the one at package-context.yaml,
// or, where items carry no paths (kustomize), the one without a path.
func find(rl *resourcelist.ResourceList) (*resourcelist.Item, []result.Result) {
	isContext := func(h resourcelist.Header) bool {
		return h.Is("v1", "ConfigMap") && h.Name == kptfile.ContextName && (h.Path == kptfile.ContextFile || h.Path == "")
	}
	var inFile, found []*resourcelist.Item
	// Only the items of package-context.yaml, or of no file, can be: the
	// others are passed over without reading their annotations.
	for _, it := range rl.SelectFile([]string{kptfile.ContextFile, ""}, func(h resourcelist.Header) bool { return h.Path == kptfile.ContextFile || isContext(h) }) {
		if it.Header().Path == kptfile.ContextFile {
			inFile = append(inFile, it)
		}
		if isContext(it.Header()) {
			found = append(found, it)
		}
	}
	switch {
	case len(inFile) > 1:
		return nil, []result.Result{result.Errorf("%s holds %d documents: it must hold only the ConfigMap %q",
			kptfile.ContextFile, len(inFile), kptfile.ContextName).WithFile(kptfile.ContextFile, 0)}
	case len(found) > 1:
		var where []string
		for _, it := range found {
			where = append(where, it.Header().Where())
		}
		return nil, []result.Result{found[1].Errorf("", "%d ConfigMaps named %q could be the package context (%v): keep one",
			len(found), kptfile.ContextName, where)}
	case len(found) == 1:
		return found[0], nil
	}
	return nil, nil
}

// checkData refuses a target whose data is missing or not a string map.
func checkData(it *resourcelist.Item, data *yaml.RNode) []result.Result {
	h := it.Header()
	if data == nil || yaml.IsMissingOrNull(data) {
		return []result.Result{it.Errorf("data", "%s: %s has no data field", h.Where(), h)}
	}
	var m map[string]string
	var rs []result.Result
	for _, err := range decode.Into(data.YNode(), &m, decode.Options{}, "data") {
		rs = append(rs, it.Errorf(err.Path, "%s: %s: %s", h.Where(), h, err))
	}
	return rs
}

// apply changes the ConfigMap in place: set every key, then remove.
func apply(cm *yaml.RNode, e Edit) {
	data := fieldpath.Lookup(cm, dataPath)
	for _, k := range slices.Sorted(maps.Keys(e.Data)) {
		// fieldpath.Set keeps an existing key's place and appends a new one;
		// visiting keys in order appends the new ones sorted.
		_ = fieldpath.Set(data, fieldpath.Path{k}, fieldpath.NewString(e.Data[k]))
	}
	for _, k := range e.RemoveKeys {
		_ = fieldpath.Remove(data, fieldpath.Path{k})
	}
}

// newContext returns a new package context ConfigMap holding the edit's data.
func newContext(e Edit) *yaml.RNode {
	cm := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
	for _, f := range []struct {
		path  fieldpath.Path
		value string
	}{
		{fieldpath.Path{"apiVersion"}, "v1"},
		{fieldpath.Path{"kind"}, "ConfigMap"},
		{fieldpath.Path{"metadata", "name"}, kptfile.ContextName},
		{fieldpath.Path{"metadata", "annotations", kptfile.AnnotationLocalConfig}, "true"},
	} {
		_ = fieldpath.SetString(cm, f.path, f.value)
	}
	_ = fieldpath.Set(cm, dataPath, yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode}))
	apply(cm, Edit{Data: e.Data, RemoveKeys: e.RemoveKeys})
	return cm
}
