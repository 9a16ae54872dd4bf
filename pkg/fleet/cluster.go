package fleet

import (
	"fmt"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/meta"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// cluster is the management cluster's objects, read and indexed once for
// the whole run: its Repositories, the pool injection points are filled
// from, and the objects by namespace and name. It keeps each object as its
// header and its text (as it was read), never its nodes: a fleet's
// cluster holds an object per variant or more, and the run's live memory
// (and the collector's work for each variant) would grow with it. A
// point's object is read again when the point takes it.
type cluster struct {
	repos  map[objectKey]*Repository
	pool   *inject.Pool
	byName map[objectKey][]string
}

// objectKey names an object within a namespace ("default" for none).
type objectKey struct{ namespace, name string }

func keyOf(namespace, name string) objectKey {
	if namespace == "" {
		namespace = meta.DefaultNamespace
	}
	return objectKey{namespace, name}
}

func newCluster(in Input, injected func(name string) bool, used func(objectKey) bool) (*cluster, []result.Result) {
	cl := &cluster{repos: map[objectKey]*Repository{}, byName: map[objectKey][]string{}}
	where := func(i int) string { return fileOf(in.ClusterFiles, i, "cluster object") }
	rl, err := resourcelist.ParseDocuments(in.Cluster, "")
	if err != nil {
		return cl, []result.Result{result.Errorf("cannot read the cluster's objects: %v", err)}
	}
	items := rl.Select(func(resourcelist.Header) bool { return true })
	objs := make([]*inject.Object, len(items))
	for i, it := range items {
		h := it.Header()
		h.Position = -1 // an object of the cluster, not of a list
		// Points take objects by type, namespace and name: the pool keeps
		// no label or annotation of thousands of objects.
		h.Labels, h.Annotations = nil, nil
		objs[i] = &inject.Object{Header: h, Text: in.Cluster[i], Where: where(i)}
	}
	// The pool's problems (an object given twice...) are the whole
	// cluster's; the pool kept holds what the run's variants can take.
	_, rs := inject.NewPool(objs)
	cl.pool, _ = inject.NewPool(takeable(objs, injected))
	for i, it := range items {
		h := objs[i].Header
		k := keyOf(h.Namespace, h.Name)
		if injected(h.Name) {
			cl.byName[k] = append(cl.byName[k], strings.Clone(objs[i].Text))
		}
		if !h.Is(porch.TypeRepository.APIVersion, porch.TypeRepository.Kind) {
			continue
		}
		var repo porch.Repository
		if errs := decode.Into(it.Read().YNode(), &repo, decode.Options{}, ""); len(errs) > 0 {
			for _, e := range errs {
				rs = append(rs, h.Attach(result.Errorf("%s: Repository %s: %s", where(i), h.Name, e)).WithField(e.Path))
			}
			continue
		}
		if used != nil && !used(k) {
			continue // decoded for its problems, which are the run's
		}
		cl.repos[k] = &Repository{Repository: repo}
		if i < len(in.ClusterFiles) {
			cl.repos[k].File = in.ClusterFiles[i]
		}
	}
	return cl, rs
}

// takeable returns the objects a variant of the run can take: those an
// injector of the run names (in any namespace: a point explains that an
// object of another namespace is never taken), and, so that a point tells
// "no such objects" from "none named so" as it would with them all, the
// first object of each type in each namespace. Their text is copied off
// the file's, which the run then need not keep: a shard of a large fleet
// takes a few thousand of a cluster's hundreds of thousands.
func takeable(objs []*inject.Object, injected func(name string) bool) []*inject.Object {
	type scope struct{ apiVersion, kind, namespace string }
	seen := map[scope]bool{}
	var out []*inject.Object
	for _, o := range objs {
		h := o.Header
		sc := scope{h.APIVersion, h.Kind, keyOf(h.Namespace, "").namespace}
		if injected(h.Name) || !seen[sc] {
			seen[sc] = true
			c := *o
			c.Text = strings.Clone(o.Text)
			out = append(out, &c)
		}
	}
	return out
}

// repository returns the Repository of a namespace by name, or nil.
func (cl *cluster) repository(namespace, name string) *Repository {
	return cl.repos[keyOf(namespace, name)]
}

// fileOf names the origin of the i-th object: its file, or its position.
func fileOf(files []string, i int, what string) string {
	if i < len(files) && files[i] != "" {
		return files[i]
	}
	return fmt.Sprintf("%s %d", what, i)
}
