package kptpkg_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

var fileAnnotationCases = []struct{ item, path, index string }{
	{"kind: A\n", "", ""},
	{"kind: A\nmetadata: {name: a}\n", "", ""},
	{"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: a.yaml\n    internal.config.kubernetes.io/index: '2'\n", "a.yaml", "2"},
	{"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: b.yaml\n    config.kubernetes.io/index: '1'\n", "b.yaml", "1"},
	// The internal one wins, even empty, as kyaml reads them.
	{"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: b.yaml\n    internal.config.kubernetes.io/path: a.yaml\n", "a.yaml", ""},
	{"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: b.yaml\n    internal.config.kubernetes.io/path: ''\n", "", ""},
	// A key given twice: the first, as kyaml reads it.
	{"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: b.yaml\n    config.kubernetes.io/path: c.yaml\n", "b.yaml", ""},
	// Not plain: kyaml reads it.
	{"kind: A\nmetadata:\n  annotations:\n    x: {a: b}\n    config.kubernetes.io/path: b.yaml\n", "b.yaml", ""},
	{"kind: A\nmetadata:\n  annotations: &a\n    config.kubernetes.io/path: b.yaml\n", "b.yaml", ""},
	{"- a\n", "", ""},
}

func TestFileAnnotations(t *testing.T) {
	t.Parallel()
	for _, c := range fileAnnotationCases {
		n, err := yaml.Parse(c.item)
		if err != nil {
			t.Fatal(err)
		}
		p, idx := kptpkg.FileAnnotations(n)
		if p != c.path || idx != c.index {
			t.Errorf("FileAnnotations(%q) = %q, %q; want %q, %q", c.item, p, idx, c.path, c.index)
		}
	}
}

// FuzzFileAnnotations: the path and index of any item are what kyaml's
// GetFileAnnotations reads.
func FuzzFileAnnotations(f *testing.F) {
	for _, c := range fileAnnotationCases {
		f.Add(c.item)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := yaml.Parse(s)
		if err != nil || n == nil || n.YNode() == nil {
			return
		}
		p, idx := kptpkg.FileAnnotations(n)
		wp, widx, _ := kioutil.GetFileAnnotations(n)
		if p != wp || idx != widx {
			t.Errorf("FileAnnotations(%q) = %q, %q; kyaml reads %q, %q", s, p, idx, wp, widx)
		}
	})
}
