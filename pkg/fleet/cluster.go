package fleet

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/meta"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// cluster is the management cluster's objects, read and indexed once for
// the whole run: its Repositories, the pool injection points are filled
// from, and the objects by namespace and name.
type cluster struct {
	objects []*yaml.RNode
	repos   map[objectKey]*Repository
	pool    *inject.Pool
	byName  map[objectKey][]*yaml.RNode
}

// objectKey names an object within a namespace ("default" for none).
type objectKey struct{ namespace, name string }

func keyOf(namespace, name string) objectKey {
	if namespace == "" {
		namespace = meta.DefaultNamespace
	}
	return objectKey{namespace, name}
}

func newCluster(in Input) (*cluster, []result.Result) {
	cl := &cluster{objects: in.Cluster, repos: map[objectKey]*Repository{}, byName: map[objectKey][]*yaml.RNode{}}
	where := func(i int) string { return fileOf(in.ClusterFiles, i, "cluster object") }
	var rs []result.Result
	cl.pool, rs = inject.NewPool(in.Cluster, where)
	for i, n := range in.Cluster {
		h := resourcelist.HeaderOf(n)
		k := keyOf(h.Namespace, h.Name)
		cl.byName[k] = append(cl.byName[k], n)
		if !h.Is(porch.TypeRepository.APIVersion, porch.TypeRepository.Kind) {
			continue
		}
		var repo porch.Repository
		if errs := decode.Into(n.YNode(), &repo, decode.Options{}, ""); len(errs) > 0 {
			for _, e := range errs {
				rs = append(rs, h.Attach(result.Errorf("%s: Repository %s: %s", where(i), h.Name, e)).WithField(e.Path))
			}
			continue
		}
		cl.repos[k] = &Repository{Repository: repo}
		if i < len(in.ClusterFiles) {
			cl.repos[k].File = in.ClusterFiles[i]
		}
	}
	return cl, rs
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
