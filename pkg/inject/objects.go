package inject

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Object is an in-cluster object that can fill injection points.
type Object struct {
	Header resourcelist.Header
	Node   *yaml.RNode
	// Where names the object's origin for messages: its file, or the
	// functionConfig field it was given in.
	Where string
}

// namespace is the object's namespace, "default" when it names none.
func (o *Object) namespace() string { return orDefault(o.Header.Namespace) }

// typeKey is an object's exact apiVersion and kind.
type typeKey struct{ apiVersion, kind string }

// scopeKey is a type within a namespace.
type scopeKey struct {
	typeKey
	namespace string
}

// pool indexes the in-cluster objects by type and namespace, then name, so
// that each injection point finds its candidates at once.
type pool struct {
	byScope map[scopeKey]map[string]*Object
	// namespaces lists, per type and name, the namespaces holding such an
	// object: to explain why an object of another namespace was not used.
	namespaces map[typeKey]map[string][]string
}

func newPool() *pool {
	return &pool{byScope: map[scopeKey]map[string]*Object{}, namespaces: map[typeKey]map[string][]string{}}
}

// add puts an object in the pool; one already there with the same type,
// namespace and name is an error naming both origins.
func (p *pool) add(o *Object) error {
	h := o.Header
	k := scopeKey{typeKey{h.APIVersion, h.Kind}, o.namespace()}
	names := p.byScope[k]
	if names == nil {
		names = map[string]*Object{}
		p.byScope[k] = names
	}
	if prev := names[h.Name]; prev != nil {
		return fmt.Errorf("in-cluster object %s %s/%s/%s is given twice (%s and %s): keep one",
			h.APIVersion, h.Kind, k.namespace, h.Name, prev.Where, o.Where)
	}
	names[h.Name] = o
	ns := p.namespaces[k.typeKey]
	if ns == nil {
		ns = map[string][]string{}
		p.namespaces[k.typeKey] = ns
	}
	ns[h.Name] = append(ns[h.Name], k.namespace)
	return nil
}

// in returns the objects of a type in a namespace, by name.
func (p *pool) in(apiVersion, kind, namespace string) map[string]*Object {
	return p.byScope[scopeKey{typeKey{apiVersion, kind}, namespace}]
}

// elsewhere returns the namespaces other than scope that hold an object of
// the type with the name, sorted.
func (p *pool) elsewhere(apiVersion, kind, name, scope string) []string {
	var out []string
	for _, ns := range p.namespaces[typeKey{apiVersion, kind}][name] {
		if ns != scope {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out
}

// collect takes the in-cluster items out of the list (they are inputs, not
// package content) and pools them with the request's inline objects.
func collect(rl *resourcelist.ResourceList, req Request) (*pool, []result.Result) {
	p := newPool()
	var rs []result.Result
	for _, it := range rl.Select(resourcelist.Header.InCluster) {
		rl.Delete(it)
		h := it.Header()
		if h.Name == "" || h.Kind == "" {
			rs = append(rs, it.Warningf("metadata.name", "%s: in-cluster %s has no kind or metadata.name: it cannot fill an injection point", h.Where(), h))
			continue
		}
		if err := p.add(&Object{Header: h, Node: it.Node(), Where: h.Where()}); err != nil {
			rs = append(rs, it.Errorf("metadata.name", "%v", err))
		}
	}
	for i, n := range req.Objects {
		o := &Object{Header: resourcelist.HeaderOf(n), Node: n, Where: fmt.Sprintf("functionConfig objects[%d]", i)}
		if o.Header.Kind == "" || o.Header.Name == "" {
			continue // the config's validation reports it
		}
		if err := p.add(o); err != nil {
			rs = append(rs, result.Errorf("%v", err).WithField(fmt.Sprintf("objects[%d]", i)))
		}
	}
	return p, rs
}
