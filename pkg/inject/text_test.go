package inject_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// TestObjectTextCorpus: an Object given as its Text (as a fleet keeps its
// cluster's objects) is, read again, the object it was written from for
// every field a point can take: each resource of the Nephio catalog, read
// as the fleet reads its cluster files, written with kyaml and read back,
// has every top-level field's value written by yaml.v3 (kyaml) and by
// resourcelist's emitter exactly as the original's.
func TestObjectTextCorpus(t *testing.T) {
	t.Parallel()
	compared := 0
	err := filepath.WalkDir(corpus.Nephio(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		objs, err := kptpkg.ReadDocuments(&kio.ByteReader{OmitReaderAnnotations: true}, data)
		if err != nil {
			return nil // not a file the fleet could read
		}
		for i, n := range objs {
			again, err := yaml.Parse(n.MustString())
			if err != nil {
				t.Errorf("%s [%d]: cannot read the text again: %v", p, i, err)
				continue
			}
			if diff := cmp.Diff(fieldTexts(t, n), fieldTexts(t, again)); diff != "" {
				t.Errorf("%s [%d]: fields (-read +text read again):\n%s", p, i, diff)
			}
			compared++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if compared < 500 {
		t.Errorf("compared %d objects, want the catalog's (over 500)", compared)
	}
}

// fieldTexts writes each top-level field of a mapping, under its key, with
// kyaml and with the emitter ("declined" where the emitter declines).
func fieldTexts(t *testing.T, n *yaml.RNode) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	c := n.YNode().Content
	if n.YNode().Kind != yaml.MappingNode {
		return map[string][2]string{"": {n.MustString()}}
	}
	for i := 0; i+1 < len(c); i += 2 {
		m := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{c[i], c[i+1]}})
		var b bytes.Buffer
		emitted := "declined"
		if resourcelist.Emit(&b, m.YNode()) {
			emitted = b.String()
		}
		out[c[i].Value] = [2]string{m.MustString(), emitted}
	}
	return out
}
