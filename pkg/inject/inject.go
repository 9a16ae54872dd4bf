package inject

import (
	"fmt"
	"reflect"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Function is inject-config.
var Function = krmfn.Function{Name: "inject-config", Run: Run}

// Run reads the request from the functionConfig and applies it. With no
// functionConfig nothing changes at all: no item is removed and no
// condition is written.
func Run(rl *resourcelist.ResourceList, _ krmfn.Env) error {
	c := krmfn.ConfigOf(rl)
	if c == nil {
		return nil
	}
	req, rs := RequestFrom(c)
	if len(rs) > 0 {
		// Report the package's problems too, and inject nothing.
		_, _, _, more := prepare(rl, req)
		rl.AddResults(append(rs, more...)...)
		return nil
	}
	rl.AddResults(Apply(rl, req)...)
	return nil
}

// Apply removes the in-cluster items from the list, fills every injection
// point it can from them and from req.Objects, and records a condition per
// point (and a readiness gate per required point) in the root Kptfile. An
// invalid point, a duplicate object or a missing Kptfile is an error, and
// then nothing is injected.
func Apply(rl *resourcelist.ResourceList, req Request) []result.Result {
	req.Namespace = req.scope()
	objs, pts, kf, rs := prepare(rl, req)
	if len(pts) == 0 || result.List(rs).HasError() {
		return rs
	}
	for _, p := range pts {
		p.resolve(req, objs)
		rs = append(rs, p.report(req, objs)...)
	}
	record(kf, pts)
	return rs
}

// prepare takes the in-cluster items out of the list, finds the points and,
// when there are any, the root Kptfile that records them. It reports every
// problem with them at once.
func prepare(rl *resourcelist.ResourceList, req Request) (*pool, []*point, *resourcelist.Item, []result.Result) {
	objs, rs := collect(rl, req)
	pts, prs := findPoints(rl)
	rs = append(rs, prs...)
	if len(pts) == 0 {
		return objs, nil, nil, rs
	}
	kf, krs := recordingKptfile(rl)
	return objs, pts, kf, append(rs, krs...)
}

// resolve walks the injectors in order and fills the point from the first
// object one of them selects, or records why it cannot.
func (p *point) resolve(req Request, objs *pool) {
	if len(req.Injectors) == 0 {
		p.causes = append(p.causes, "no injectors defined")
		return
	}
	byName := objs.in(p.h.APIVersion, p.h.Kind, req.Namespace)
	if len(byName) == 0 {
		p.causes = append(p.causes, fmt.Sprintf("no in-cluster resources of type %s.%s", p.h.APIVersion, p.h.Kind))
		return
	}
	for _, s := range req.Injectors {
		if o := byName[s.Name]; o != nil && applies(s, p.h) {
			p.fill(o)
			return
		}
	}
}

// applies reports whether each of the selector's group, version and kind
// that is set equals the point's.
func applies(s Selector, h resourcelist.Header) bool {
	return (s.Group == nil || *s.Group == h.Group()) &&
		(s.Version == nil || *s.Version == h.Version()) &&
		(s.Kind == nil || *s.Kind == h.Kind)
}

// injectedField is the field a point takes from its source: data for a
// core ConfigMap, spec for any other kind.
func injectedField(h resourcelist.Header) fieldpath.Path {
	if h.Group() == "" && h.Kind == v1alpha1.TypeConfigMap.Kind {
		return fieldpath.Path{"data"}
	}
	return fieldpath.Path{"spec"}
}

var injectedPath = fieldpath.Path{"metadata", "annotations", kptfile.AnnotationInjectedResource}

// fill copies the source's field over the point's and names the source in
// the point's kpt.dev/injected-resource annotation. A field that already
// holds the same value is left as it is, comments and layout included.
func (p *point) fill(o *Object) {
	field := injectedField(p.h)
	src, err := o.node()
	if err != nil {
		p.causes = append(p.causes, err.Error())
		return
	}
	v := fieldpath.Lookup(src, field)
	if yaml.IsMissingOrNull(v) {
		p.causes = append(p.causes, fmt.Sprintf("field %q not found in resource %q", field, o.Header.Name))
		return
	}
	val, err := detach(v.YNode())
	if err != nil {
		p.causes = append(p.causes, fmt.Sprintf("field %q of resource %q cannot be copied: %v", field, o.Header.Name, err))
		return
	}
	n := p.item.Edit()
	if !same(fieldpath.Lookup(n, field), v) {
		_ = fieldpath.Set(n, field, yaml.NewRNode(val))
	}
	if err := fieldpath.SetString(n, injectedPath, o.Header.Name); err != nil {
		p.causes = append(p.causes, fmt.Sprintf("cannot annotate the injection point: %v", err))
		return
	}
	p.source = o
}

// same reports whether two nodes hold the same data (comments, layout and
// key order aside).
func same(a, b *yaml.RNode) bool {
	if a == nil || b == nil {
		return false
	}
	var x, y any
	if a.YNode().Decode(&x) != nil || b.YNode().Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// report returns a result per point: info when it was filled, else a
// warning for a required point and info for an optional one, plus a
// warning for each object an injector names that exists only in other
// namespaces. Each carries the point as its resourceRef, which kpt prints
// before the message: a message names the point only where its sentence
// needs it.
func (p *point) report(req Request, objs *pool) []result.Result {
	c := p.condition()
	name := p.h.Kind + "/" + p.h.Name
	if p.source != nil {
		return []result.Result{p.item.Infof("%s: %s", p.h.Where(), c.Message)}
	}
	var rs []result.Result
	if p.required {
		rs = append(rs, p.item.Warningf("", "%s: required injection point %s was not filled: %s", p.h.Where(), name, c.Message))
	} else {
		rs = append(rs, p.item.Infof("%s: optional injection point %s was not filled: %s", p.h.Where(), name, c.Message))
	}
	seen := map[string]bool{}
	for _, s := range req.Injectors {
		if seen[s.Name] || !applies(s, p.h) {
			continue
		}
		seen[s.Name] = true
		if ns := objs.elsewhere(p.h.APIVersion, p.h.Kind, s.Name, req.Namespace); len(ns) > 0 {
			word := "namespace"
			if len(ns) > 1 {
				word = "namespaces"
			}
			rs = append(rs, p.item.Warningf("", "%s: in-cluster %s %q is in %s %s, not in %q: objects of other namespaces are never injected",
				p.h.Where(), p.h.Kind, s.Name, word, strings.Join(ns, ", "), req.Namespace))
		}
	}
	return rs
}
