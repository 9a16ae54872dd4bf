package fanout

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// sameAsNodes checks that a child written as text is the child built as
// nodes and encoded: the same entry in the output, the same header. It
// reports whether the text was taken.
func sameAsNodes(t *testing.T, s *Set, d *desired, path string, up *yaml.Node) bool {
	t.Helper()
	var w writer
	w.child(s, d, path, up)
	text, ok := w.enc.Text(&w.text)
	if !ok {
		return false
	}
	nodes, err := w.enc.Encode(yaml.NewRNode(w.b.child(s, d.name, path, w.b.spec(d.spec, up, d.repo, d.pkg))), path)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	out := func(e resourcelist.Encoded) (string, resourcelist.Header) {
		rl := resourcelist.Empty()
		it := rl.AddEncoded(e)
		b, err := rl.Write()
		if err != nil {
			t.Fatal(err)
		}
		return string(b), it.Header()
	}
	wantOut, wantHdr := out(nodes)
	gotOut, gotHdr := out(text)
	if diff := cmp.Diff(wantOut, gotOut); diff != "" {
		t.Fatalf("text differs from nodes (-nodes +text):\n%s", diff)
	}
	if diff := cmp.Diff(wantHdr, gotHdr); diff != "" {
		t.Fatalf("header differs (-nodes +text):\n%s", diff)
	}
	return true
}

// plainNode is a template's pipeline entry as compile keeps it.
func plainNode(t *testing.T, s string) *yaml.Node {
	t.Helper()
	n, err := plain(node(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTextAsNodes(t *testing.T) {
	t.Parallel()
	b := &builder{}
	up := b.mapping()
	b.putString(up, "repo", "catalog")
	b.put(up, "revision", b.node(yaml.ScalarNode, yaml.NodeTagInt, "2"))
	group := "apps"
	s := &Set{}
	s.Metadata.Name, s.Metadata.Namespace = "agent", "default"
	mutator := plainNode(t, "{image: 'set-labels:v1', configMap: {env: prod, 'on': 'yes'}, selectors: [{kind: X}]}")
	full := &desired{child: &child{repo: "edge-1", pkg: "agent", spec: &spec{
		adoptionPolicy: "adoptExisting",
		labels:         []pair{{"a", "1"}, {"b", "yes"}},
		annotations:    []pair{{"x", "a: b"}},
		data:           []pair{{"site", "#1"}},
		removeKeys:     []string{"k", "on"},
		injectors:      []injector{{group: &group, name: "i"}, {name: "j"}},
		mutators:       []*yaml.Node{mutator},
	}}, name: "agent-edge-1"}
	if !sameAsNodes(t, s, full, "pv/agent-edge-1.yaml", up) {
		t.Fatal("text declined a plain child")
	}
	bare := &desired{child: &child{spec: &spec{data: nil, removeKeys: []string{"x"}}}, name: "n"}
	if !sameAsNodes(t, s, bare, "n.yaml", up) {
		t.Fatal("text declined a child with an empty downstream")
	}
	for _, d := range []*desired{
		{child: &child{repo: "r", pkg: "é", spec: &spec{}}, name: "n"},
		{child: &child{repo: "r", pkg: "p", spec: &spec{injectors: []injector{{name: ""}}}}, name: "n"},
	} {
		if sameAsNodes(t, s, d, "n.yaml", up) {
			t.Errorf("text took %+v, which the emitter declines", d.spec)
		}
	}
}

// FuzzTextAsNodes: any child written as text is the child built as nodes.
func FuzzTextAsNodes(f *testing.F) {
	f.Add("agent\ndefault\nedge-1\nagent\nadoptExisting\n\nregion\nus-east1\nyes\non\n0x1F", uint16(0xffff), "v1")
	f.Add("a\n\nb\n\n\n\n- x\n'q'\nk: v\n#c\n~", uint16(0x0f0f), "2")
	f.Fuzz(func(t *testing.T, words string, mask uint16, revision string) {
		w := strings.Split(words, "\n")
		word := func(i int) string { return w[i%len(w)] }
		has := func(bit int) bool { return mask&(1<<bit) != 0 }
		s := &Set{}
		s.Metadata.Name, s.Metadata.Namespace = word(0), word(1)
		sp := &spec{adoptionPolicy: word(4), deletionPolicy: word(5)}
		pairs := func(from int) []pair {
			return lastOfEach([]pair{{word(from), word(from + 1)}, {word(from + 2), word(from + 3)}})
		}
		if has(0) {
			sp.labels = pairs(6)
		}
		if has(1) {
			sp.annotations = pairs(7)
		}
		if has(2) {
			sp.data = pairs(8)
		}
		if has(3) {
			sp.removeKeys = []string{word(9), word(10)}
		}
		if has(4) {
			g := word(11)
			sp.injectors = append(sp.injectors, injector{group: &g, name: word(12)})
		}
		if has(5) {
			sp.injectors = append(sp.injectors, injector{name: word(13)})
		}
		b := &builder{}
		if has(6) {
			sp.mutators = []*yaml.Node{b.function(plainNode(t, "{image: fn, configMap: {a: b}, configMapExprs: []}"), pairs(3))}
		}
		if has(7) {
			sp.validators = []*yaml.Node{b.function(plainNode(t, "{name: v, image: fn}"), nil)}
		}
		up := b.mapping()
		b.putString(up, "repo", word(2))
		tag := yaml.NodeTagString
		if has(8) {
			tag = yaml.NodeTagInt
		}
		b.put(up, "revision", b.node(yaml.ScalarNode, tag, revision))
		d := &desired{child: &child{repo: word(2), pkg: word(3), spec: sp}, name: word(14)}
		sameAsNodes(t, s, d, word(15)+".yaml", up)
	})
}
