package inject

import (
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Object is an in-cluster object that can fill injection points.
type Object struct {
	Header resourcelist.Header
	// Node is the object; when it is nil, Text is: the object as kyaml
	// writes it (RNode.String), read again only when a point takes it, so
	// that a pool of many objects holds their text, not their nodes.
	Node *yaml.RNode
	Text string
	// Where names the object's origin for messages: its file, or the
	// functionConfig field it was given in.
	Where string
}

// node returns the object's node: Node, or Text read.
func (o *Object) node() (*yaml.RNode, error) {
	if o.Node != nil {
		return o.Node, nil
	}
	n, err := yaml.Parse(o.Text)
	if err != nil {
		return nil, fmt.Errorf("cannot read in-cluster object %s again: %w", o.Header.Name, err)
	}
	return n, nil
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

// Pool is a set of in-cluster objects indexed once, for a caller that fills
// many packages from the same objects (a fleet of variants): give it as
// Request.Pool instead of putting the objects into every ResourceList. It is
// read-only once made, and safe for concurrent use.
type Pool struct{ p *pool }

// NewPool indexes objects, each given with its header, its node or text,
// and its origin. Objects without kind or name are left out with a
// warning; two objects with one type, namespace and name are an error.
func NewPool(objects []*Object) (*Pool, []result.Result) {
	p := newPool()
	var rs []result.Result
	for _, o := range objects {
		if o.Header.Kind == "" || o.Header.Name == "" {
			rs = append(rs, result.Warningf("%s: in-cluster object has no kind or metadata.name: it cannot fill an injection point", o.Where))
			continue
		}
		if err := p.add(o); err != nil {
			rs = append(rs, result.Errorf("%v", err))
		}
	}
	return &Pool{p: p}, rs
}

// clone returns a copy of the pool's index that more objects can be added to.
func (p *pool) clone() *pool {
	c := newPool()
	for k, names := range p.byScope {
		c.byScope[k] = maps.Clone(names)
	}
	for k, names := range p.namespaces {
		m := make(map[string][]string, len(names))
		for name, nss := range names {
			m[name] = slices.Clone(nss)
		}
		c.namespaces[k] = m
	}
	return c
}

// collect takes the in-cluster items out of the list (they are inputs, not
// package content) and pools them with the request's inline objects and its
// shared pool.
func collect(rl *resourcelist.ResourceList, req Request) (*pool, []result.Result) {
	items := rl.Select(resourcelist.Header.InCluster)
	if req.Pool != nil && len(items) == 0 && len(req.Objects) == 0 {
		return req.Pool.p, nil
	}
	p := newPool()
	if req.Pool != nil {
		p = req.Pool.p.clone()
	}
	var rs []result.Result
	for _, it := range items {
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
