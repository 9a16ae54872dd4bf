// Package fleet renders a fleet of package variants locally, as Porch would
// in a management cluster: PackageVariantSets and PackageVariants, the
// cluster's objects (Repositories, target objects, injection sources) and
// the upstream packages' files go in; one downstream package per variant
// comes out, cloned from its upstream with its package context set, its
// pipeline prepended and its injection points filled.
package fleet

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/pipeline"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/pkgdir"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Input is what a fleet is rendered from.
type Input struct {
	// Variants are PackageVariantSets and PackageVariants.
	Variants []*yaml.RNode
	// Cluster are the management cluster's objects: Repositories,
	// PackageRevisions, the objects set targets select, injection sources.
	Cluster []*yaml.RNode
	// Upstreams are the upstream packages' files by package name.
	Upstreams map[string]pkgdir.Files
	Env       krmfn.Env
}

// Variant is one rendered downstream package.
type Variant struct {
	// Name is the PackageVariant's name.
	Name string
	// Repo and Package name the downstream package.
	Repo, Package string
	// Upstream is the upstream package's name.
	Upstream string
	Files    pkgdir.Files
	Results  result.List
}

// Render expands the sets, then renders every variant. Problems of a set or
// of a variant are results; a variant that cannot be rendered has no files.
func Render(in Input) ([]Variant, result.List) {
	pvs, rs := expand(in)
	var out []Variant
	for _, pv := range pvs {
		out = append(out, renderOne(in, pv))
	}
	return out, rs
}

// expand returns the PackageVariants: those of every set, then the ones
// given as such.
func expand(in Input) ([]*yaml.RNode, result.List) {
	var pvs, direct []*yaml.RNode
	var rs result.List
	for _, v := range in.Variants {
		h := resourcelist.HeaderOf(v)
		switch {
		case h.Is(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind):
			direct = append(direct, v)
		case h.Is(porch.TypePackageVariantSet.APIVersion, porch.TypePackageVariantSet.Kind):
			children, crs := fanOut(in, v)
			pvs = append(pvs, children...)
			rs = append(rs, crs...)
		default:
			rs = append(rs, h.Attach(result.Errorf("%s is neither a %s nor a %s", h,
				porch.TypePackageVariantSet.Describe(), porch.TypePackageVariant.Describe())))
		}
	}
	return append(pvs, direct...), rs.Sorted()
}

// fanOut runs fan-out-variants for one set over the cluster's objects.
func fanOut(in Input, set *yaml.RNode) ([]*yaml.RNode, []result.Result) {
	b, err := pkgdir.Source(nil, in.Cluster, set)
	if err != nil {
		return nil, []result.Result{result.Errorf("cannot expand %s: %v", set.GetName(), err)}
	}
	rl, err := resourcelist.Parse(b)
	if err != nil {
		return nil, []result.Result{result.Errorf("cannot expand %s: %v", set.GetName(), err)}
	}
	krmfn.Apply(fanout.Function, rl, in.Env)
	var pvs []*yaml.RNode
	for _, it := range rl.Select(func(h resourcelist.Header) bool {
		return h.Is(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind) &&
			h.Labels[porch.LabelVariantSet] == set.GetName()
	}) {
		pvs = append(pvs, it.Node())
	}
	return pvs, rl.Results()
}

// renderOne clones the variant's upstream and applies the variant to it:
// the package context (name, then spec.packageContext), the pipeline, the
// injection.
func renderOne(in Input, pvNode *yaml.RNode) Variant {
	var pv porch.PackageVariant
	v := Variant{Name: pvNode.GetName()}
	if errs := decode.Into(pvNode.YNode(), &pv, decode.Options{}, ""); len(errs) > 0 {
		for _, e := range errs {
			v.Results = append(v.Results, result.Errorf("PackageVariant %s: %s", v.Name, e))
		}
		return v
	}
	if pv.Spec.Upstream == nil || pv.Spec.Downstream == nil || pv.Spec.Downstream.Package == "" {
		v.Results = append(v.Results, result.Errorf("PackageVariant %s: spec.upstream and spec.downstream.package are required", v.Name))
		return v
	}
	v.Repo, v.Package, v.Upstream = pv.Spec.Downstream.Repo, pv.Spec.Downstream.Package, pv.Spec.Upstream.Package
	files, ok := in.Upstreams[v.Upstream]
	if !ok {
		v.Results = append(v.Results, result.Errorf("PackageVariant %s: upstream package %q not found among %v", v.Name, v.Upstream, names(in.Upstreams)))
		return v
	}
	b, err := pkgdir.Source(files, inCluster(in.Cluster), pvNode)
	if err != nil {
		v.Results = append(v.Results, result.Errorf("PackageVariant %s: %v", v.Name, err))
		return v
	}
	rl, err := resourcelist.Parse(b)
	if err != nil {
		v.Results = append(v.Results, result.Errorf("PackageVariant %s: %v", v.Name, err))
		return v
	}
	// Cloning names the package in its context, as kpt and Porch do.
	rl.AddResults(pkgcontext.Apply(rl, pkgcontext.Edit{Data: map[string]string{"name": v.Package}, Create: true})...)
	for _, f := range []krmfn.Function{pkgcontext.Function, pipeline.Function, inject.Function} {
		krmfn.Apply(f, rl, in.Env)
	}
	v.Results = rl.Results()
	out, err := rl.Write()
	if err == nil {
		v.Files, err = pkgdir.Sink(b, out, files)
	}
	if err != nil {
		v.Results = append(v.Results, result.Errorf("PackageVariant %s: %v", v.Name, err))
	}
	return v
}

// inCluster returns copies of the objects marked as in-cluster items.
func inCluster(objs []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, 0, len(objs))
	for _, o := range objs {
		c := o.Copy()
		if err := c.PipeE(yaml.SetAnnotation(v1alpha1.AnnotationInCluster, "true")); err == nil {
			_ = c.PipeE(yaml.ClearAnnotation(kptfile.AnnotationPath), yaml.ClearAnnotation(kptfile.AnnotationInternalPath))
			out = append(out, c)
		}
	}
	return out
}

func names(m map[string]pkgdir.Files) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// String summarises a variant for people.
func (v Variant) String() string {
	return fmt.Sprintf("%s: %s/%s from %s (%d files)", v.Name, v.Repo, v.Package, v.Upstream, len(v.Files))
}
