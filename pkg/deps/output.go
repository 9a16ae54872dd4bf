package deps

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Target says where the PackageVariants a plan needs go.
type Target struct {
	ClusterPrefix  string
	DownstreamRepo string
	Namespace      string
}

// variantName is the name of a package's PackageVariant and downstream
// package: a nested package's path (`nephio-mgmt/porch`) with its slashes
// made dashes.
func (t Target) variantName(pkg string) string { return t.ClusterPrefix + labelValue(pkg) }

// labelValue is a package as the value of the label that marks its
// PackageVariant (a label value holds no slash).
func labelValue(pkg string) string { return strings.ReplaceAll(pkg, "/", "-") }

// Write puts a plan into the package: the InstallPlan (created or updated
// in place), a PackageVariant per package to install or upgrade (created,
// or its upstream and downstream updated in place; other fields kept), the
// removal of its PackageVariants for packages deleted, and each
// PackageInstall's status.version. Items whose content would not change are
// not touched, so a second run changes nothing.
func Write(rl *resourcelist.ResourceList, plan *Plan, t Target, installs []Install) []result.Result {
	if rs := checkVariants(plan, t); len(rs) > 0 {
		return rs
	}
	var rs []result.Result
	if r, ok := writePlan(rl, plan); !ok {
		rs = append(rs, r)
	}
	// The package's own PackageVariants, selected once for every step.
	variants := rl.Select(func(h resourcelist.Header) bool { return isType(h, porch.TypePackageVariant) && !h.InCluster() })
	for _, s := range plan.Steps {
		switch s.Action {
		case v1alpha1.ActionInstall, v1alpha1.ActionUpgrade:
			if r, ok := writeVariant(rl, variants, t, s.Package, plan.Repos[s.Package], s.Version, plan.Context[s.Package]); !ok {
				rs = append(rs, r)
			}
		case v1alpha1.ActionDelete:
			for _, it := range variants {
				if it.Header().Labels[v1alpha1.LabelResolvedPackage] == labelValue(s.Package) {
					rl.Delete(it)
				}
			}
		}
	}
	return append(rs, writeStatus(plan, installs)...)
}

// checkVariants refuses to write PackageVariants without a downstream
// repository, an upstream one, or a valid name.
func checkVariants(plan *Plan, t Target) []result.Result {
	var need, bad []string
	var rs []result.Result
	for _, s := range plan.Steps {
		if s.Action != v1alpha1.ActionInstall && s.Action != v1alpha1.ActionUpgrade {
			continue
		}
		need = append(need, s.Package)
		if plan.Repos[s.Package] == "" {
			rs = append(rs, result.Errorf("CatalogPackage/%s has no spec.repo: its PackageVariant cannot name the upstream repository", s.Package))
		}
		if name := t.variantName(s.Package); !v1alpha1.ValidName(name) {
			bad = append(bad, name)
		}
	}
	if len(need) > 0 && t.DownstreamRepo == "" {
		rs = append(rs, result.Errorf("downstreamRepo is required to write the PackageVariants of %s", strings.Join(need, ", ")).WithField("downstreamRepo"))
	}
	if len(bad) > 0 {
		rs = append(rs, result.Errorf("PackageVariant names %s are not valid Kubernetes names (lower-case letters, digits, '-' and '.', at most 253 characters)", strings.Join(bad, ", ")).WithField("clusterPrefix"))
	}
	return rs
}

// writePlan creates the InstallPlan or updates its status in place.
func writePlan(rl *resourcelist.ResourceList, plan *Plan) (result.Result, bool) {
	status := v1alpha1.InstallPlanStatus{Steps: plan.Steps, UninstallOrder: plan.UninstallOrder}
	existing := rl.Select(func(h resourcelist.Header) bool {
		return isType(h, v1alpha1.TypeInstallPlan) && h.Name == v1alpha1.InstallPlanName && !h.InCluster()
	})
	if len(existing) == 0 {
		ip := v1alpha1.InstallPlan{
			TypeMeta: v1alpha1.TypeInstallPlan,
			Metadata: v1alpha1.ObjectMeta{Name: v1alpha1.InstallPlanName, Annotations: map[string]string{kptfile.AnnotationLocalConfig: "true"}},
			Status:   status,
		}
		return appendNode(rl, ip, v1alpha1.InstallPlanFile)
	}
	it := existing[0]
	var old v1alpha1.InstallPlanStatus
	if st := fieldpath.Lookup(it.Node(), fieldpath.Path{"status"}); st != nil {
		decode.Into(st.YNode(), &old, decode.Options{}, "status")
	}
	if reflect.DeepEqual(normalized(old), normalized(status)) {
		return result.Result{}, true
	}
	n, err := nodeOf(status)
	if err == nil {
		err = fieldpath.Set(it.Edit(), fieldpath.Path{"status"}, n)
	}
	if err != nil {
		return it.Errorf("status", "%s: %s: cannot write the plan: %v", it.Header().Where(), it.Header(), err), false
	}
	return result.Result{}, true
}

// normalized makes empty and missing lists compare equal.
func normalized(s v1alpha1.InstallPlanStatus) v1alpha1.InstallPlanStatus {
	out := v1alpha1.InstallPlanStatus{Steps: []v1alpha1.PlanStep{}, UninstallOrder: append([]string{}, s.UninstallOrder...)}
	for _, st := range s.Steps {
		st.RequiredBy = append([]string{}, st.RequiredBy...)
		out.Steps = append(out.Steps, st)
	}
	return out
}

// writeVariant creates a package's PackageVariant, or updates the upstream
// and downstream of the one of its name among variants (the kpt package's
// own PackageVariants).
func writeVariant(rl *resourcelist.ResourceList, variants []*resourcelist.Item, t Target, pkg, repo, version string, data map[string]string) (result.Result, bool) {
	name := t.variantName(pkg)
	at := slices.IndexFunc(variants, func(it *resourcelist.Item) bool { return it.Header().Name == name })
	if at < 0 {
		pv := porch.PackageVariant{
			TypeMeta: porch.TypePackageVariant,
			Metadata: v1alpha1.ObjectMeta{Name: name, Namespace: t.Namespace, Labels: map[string]string{v1alpha1.LabelResolvedPackage: labelValue(pkg)}},
			Spec: porch.PackageVariantSpec{
				Upstream:   &porch.Upstream{Repo: repo, Package: pkg, Revision: decode.AnyScalar(version)},
				Downstream: &porch.Downstream{Repo: t.DownstreamRepo, Package: name},
			},
		}
		if len(data) > 0 {
			pv.Spec.PackageContext = &porch.PackageContext{Data: data}
		}
		return appendNode(rl, pv, "packagevariants/"+name+".yaml")
	}
	it := variants[at]
	want := []struct {
		path  fieldpath.Path
		value string
	}{
		{fieldpath.Path{"spec", "upstream", "repo"}, repo},
		{fieldpath.Path{"spec", "upstream", "package"}, pkg},
		{fieldpath.Path{"spec", "upstream", "revision"}, version},
		{fieldpath.Path{"spec", "downstream", "repo"}, t.DownstreamRepo},
		{fieldpath.Path{"spec", "downstream", "package"}, name},
	}
	for _, k := range slices.Sorted(maps.Keys(data)) {
		want = append(want, struct {
			path  fieldpath.Path
			value string
		}{fieldpath.Path{"spec", "packageContext", "data", k}, data[k]})
	}
	var edited *yaml.RNode
	for _, f := range want {
		if got, _ := fieldpath.String(it.Node(), f.path); got == f.value {
			continue
		}
		if edited == nil {
			edited = it.Edit()
		}
		if err := fieldpath.SetString(edited, f.path, f.value); err != nil {
			return it.Errorf(f.path.String(), "%s: %s: cannot set %s: %v", it.Header().Where(), it.Header(), f.path, err), false
		}
	}
	return result.Result{}, true
}

// writeStatus sets status.version on each PackageInstall whose package the
// plan installs, upgrades or keeps.
func writeStatus(plan *Plan, installs []Install) []result.Result {
	versions := map[string]string{}
	for _, s := range plan.Steps {
		if s.Action == v1alpha1.ActionInstall || s.Action == v1alpha1.ActionUpgrade || s.Action == v1alpha1.ActionKeep {
			versions[s.Package] = s.Version
		}
	}
	var rs []result.Result
	for _, in := range installs {
		v, ok := versions[in.Spec.Package]
		if !ok {
			continue
		}
		if got, _ := fieldpath.String(in.Item.Node(), fieldpath.Path{"status", "version"}); got == v {
			continue
		}
		if err := fieldpath.SetString(in.Item.Edit(), fieldpath.Path{"status", "version"}, v); err != nil {
			h := in.Item.Header()
			rs = append(rs, in.Item.Errorf("status.version", "%s: %s: cannot set status.version: %v", h.Where(), h, err))
		}
	}
	return rs
}

// nodeOf encodes a value as a YAML node.
func nodeOf(v any) (*yaml.RNode, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode: %w", err)
	}
	return yaml.Parse(string(b))
}

// appendNode adds a new item at path.
func appendNode(rl *resourcelist.ResourceList, v any, path string) (result.Result, bool) {
	n, err := nodeOf(v)
	if err == nil {
		if rev := fieldpath.Lookup(n, fieldpath.Path{"spec", "upstream", "revision"}); rev != nil {
			rev.YNode().Style = yaml.DoubleQuotedStyle
		}
		_, err = rl.Append(n, path)
	}
	if err != nil {
		return result.Errorf("cannot write %s: %v", path, err), false
	}
	return result.Result{}, true
}
