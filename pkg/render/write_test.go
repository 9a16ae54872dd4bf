package render

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
)

// TestWriteListCorpus: EncodeList writes what kyaml's ByteWriter writes,
// for every package of the Nephio catalog as a ResourceList.
func TestWriteListCorpus(t *testing.T) {
	t.Parallel()
	cfg, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  k: v # c\n")
	if err != nil {
		t.Fatal(err)
	}
	results, err := yaml.Parse("- message: m\n  severity: info # c\n  file: {path: a.yaml}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range corpus.Packages(t) {
		files, err := kptpkg.Read(os.DirFS(p))
		if err != nil {
			t.Fatal(err)
		}
		items, err := files.Resources("", true)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []*yaml.RNode{nil, cfg} {
			var want bytes.Buffer
			w := kio.ByteWriter{Writer: &want, KeepReaderAnnotations: true, FunctionConfig: c, Results: results,
				WrappingAPIVersion: kio.ResourceListAPIVersion, WrappingKind: kio.ResourceListKind}
			if err := w.Write(items); err != nil {
				t.Fatal(err)
			}
			got, err := EncodeList(items, c, results)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%s: EncodeList differs from kio.ByteWriter", p)
			}
		}
	}
}

func TestEncodeListEmpty(t *testing.T) {
	t.Parallel()
	var want bytes.Buffer
	if err := (kio.ByteWriter{Writer: &want, WrappingAPIVersion: kio.ResourceListAPIVersion, WrappingKind: kio.ResourceListKind}).Write(nil); err != nil {
		t.Fatal(err)
	}
	got, err := EncodeList(nil, nil, nil)
	if err != nil || string(got) != want.String() {
		t.Errorf("got %q, %v; want %q", got, err, want.String())
	}
}

// TestEncodeListMany: a list long enough to be written on several cores
// comes out as kyaml writes it.
func TestEncodeListMany(t *testing.T) {
	t.Parallel()
	var items []*yaml.RNode
	for i := range 700 {
		n, err := yaml.Parse(fmt.Sprintf("# item %d\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n  k: |\n    a\n    b\n", i, i))
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, n)
	}
	var want bytes.Buffer
	if err := (kio.ByteWriter{Writer: &want, KeepReaderAnnotations: true, WrappingAPIVersion: kio.ResourceListAPIVersion, WrappingKind: kio.ResourceListKind}).Write(items); err != nil {
		t.Fatal(err)
	}
	got, err := EncodeList(items, nil, nil)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("EncodeList of 700 items differs from kio.ByteWriter (%v)", err)
	}
}
