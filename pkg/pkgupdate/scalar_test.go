package pkgupdate

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge3"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"
)

// FuzzVisitScalar holds visitScalar's shortcut to merge3's own answers:
// three scalars (one per side, "" for none) merge to the same node.
func FuzzVisitScalar(f *testing.F) {
	for _, seed := range [][3]string{
		{"1", "'1'", "2"}, {"1", "2", "3"}, {"a # c", "a", "b"}, {"true", `"true"`, "x"}, {"", "a", "b"},
		{"a", "", "b"}, {"null", "a", "b"}, {"a", "a", "~"}, {"!!str 1", "1", "2"}, {"&x a", "a", "b"},
		{"2001-12-14", "'2001-12-14'", "x"}, {"|\n  a\n  b\n", "'a\n\n  b'", "c"}, {"1.0", "1.00", "1"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, o, u, d string) {
		var s walk.Sources
		for _, v := range []string{d, o, u} {
			n, ok := scalar(v)
			if !ok {
				return
			}
			s = append(s, n)
		}
		want, werr := merge3.Visitor{}.VisitScalar(s, nil)
		got, gerr := visitScalar(merge3.Visitor{}, s, nil)
		if want != got || (werr == nil) != (gerr == nil) {
			t.Errorf("merge3 answers %v (%v), the shortcut %v (%v)", name(s, want), werr, name(s, got), gerr)
		}
	})
}

// scalar parses v as one scalar; "" is none.
func scalar(v string) (*yaml.RNode, bool) {
	if v == "" {
		return nil, true
	}
	n, err := yaml.Parse(v)
	if err != nil || n.YNode().Kind != yaml.ScalarNode {
		return nil, false
	}
	return n, true
}

func name(s walk.Sources, n *yaml.RNode) string {
	switch {
	case n == nil:
		return "nil"
	case n == s.Dest():
		return "dest"
	case n == s.Origin():
		return "origin"
	case n == s.Updated():
		return "updated"
	}
	return "another node"
}
