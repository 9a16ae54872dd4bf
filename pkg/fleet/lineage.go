package fleet

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

// clone returns a new downstream package of an upstream revision, named
// name: from git, as `kpt pkg get` writes it (its lineage, merge comments
// and identifiers); from a folder, which has no history to record, the
// upstream's files with the package renamed.
func clone(up Upstream, name string) (kptpkg.Files, error) {
	if up.Origin.Commit != "" {
		return pkgupdate.Clone(up.Files, name, up.Origin)
	}
	return kptfile.Edit(up.Files, func(kf *yaml.RNode) error {
		return fieldpath.SetString(kf, fieldpath.Path{"metadata", "name"}, name)
	})
}
