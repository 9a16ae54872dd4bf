package kptpkg_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Encode writes what kyaml's ByteWriter writes, whether an item has
// annotations to clear (copied, then cleared) or none (written as it is),
// and leaves the items it is given as they were.
func TestEncodeClearsAsByteWriter(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: y\ndata:\n  k: v\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/index: '0'\n    x: y\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    internal.config.kubernetes.io/path: a.yaml\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {}\ndata: {k: v}\n",
		"apiVersion: v1\nkind: ConfigMap\ndata: {k: v}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {a: b}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/index: '0'\n    internal.config.kubernetes.io/path: a.yaml\n  labels: {a: b}\ndata:\n  k: v # why\n  list:\n  - a\n  - b\n",
		"# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    config.kubernetes.io/index: '1'\n    x: y # kept\n  name: a\nspec:\n  template:\n    metadata:\n      annotations:\n        config.kubernetes.io/index: '2'\n",
	} {
		n, err := yaml.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		before := n.MustString()
		var want bytes.Buffer
		if err := (kio.ByteWriter{Writer: &want, ClearAnnotations: kptfile.BookkeepingAnnotations}).Write([]*yaml.RNode{n.Copy()}); err != nil {
			t.Fatal(err)
		}
		got, err := kptpkg.Encode([]*yaml.RNode{n})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.String(), string(got)); d != "" {
			t.Errorf("%q: Encode differs from the ByteWriter (-want +got):\n%s", in, d)
		}
		if after := n.MustString(); after != before {
			t.Errorf("%q: the item changed:\n%s", in, after)
		}
	}
}
