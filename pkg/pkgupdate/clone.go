package pkgupdate

import (
	"errors"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Clone returns a new downstream package named name, as `kpt pkg get` writes
// it from the upstream's files: the root Kptfile's metadata.name is name
// (its namespace goes, as kpt drops it), its upstream is origin with
// `updateStrategy: resource-merge`, its upstreamLock origin's commit (none
// without a commit); every resource gets the `# kpt-merge: <ns>/<name>`
// comment and the upstream-identifier annotation kpt adds; subpackages are
// copied as they are (a remote subpackage the upstream never fetched is an
// error: kpt would fetch it). Files nothing changes keep their bytes.
func Clone(upstream kptpkg.Files, name string, origin Origin) (kptpkg.Files, error) {
	if err := origin.check(); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("must specify the package name")
	}
	t, err := readTree(upstream, "upstream")
	if err != nil {
		return nil, err
	}
	for _, d := range t.pkgs {
		if d != "" && t.unfetched(d) {
			return nil, fmt.Errorf("subpackage %q has an upstream and no upstreamLock: kpt would fetch it, which a clone here does not do", d)
		}
	}
	kf := t.kptfiles[""]
	items := t.pristine
	if kf == nil {
		if kf, err = newKptfile(); err != nil {
			return nil, err
		}
	}
	if err := cloneKptfile(kf, name, origin); err != nil {
		return nil, err
	}
	out := []*yaml.RNode{kf}
	for _, d := range t.pkgs {
		if d != "" {
			out = append(out, t.kptfiles[d])
		}
	}
	for _, items := range t.items {
		out = append(out, items...)
	}
	return kptpkg.Sink(out, items, upstream)
}

// newKptfile is the Kptfile kpt writes for an upstream that has none.
func newKptfile() (*yaml.RNode, error) {
	items, err := kptpkg.Items(kptapi.FileName, []byte("apiVersion: "+kptapi.APIVersion+"\nkind: "+kptapi.Kind+"\n"))
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

// cloneKptfile makes the upstream's Kptfile the downstream's, as kpt's get
// does: named name, no namespace, the origin's upstream and upstreamLock in
// the places kpt writes them.
func cloneKptfile(kf *yaml.RNode, name string, origin Origin) error {
	meta, err := fieldpath.Ensure(kf, fieldpath.Path{"metadata"})
	if err != nil {
		return kptfile.Error(kptapi.FileName, err)
	}
	if err := kptfile.Assign(meta.YNode(), "name", name); err != nil {
		return err
	}
	if err := fieldpath.Remove(meta, fieldpath.Path{"namespace"}); err != nil {
		return err
	}
	if err := kptfile.SetLineage(kf, origin.upstream(), origin.lock()); err != nil {
		return err
	}
	kptfile.Order(kf.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
	return nil
}
