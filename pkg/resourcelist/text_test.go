package resourcelist

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// textMirror drives a Text and builds the nodes the same calls describe,
// for Encode: the two must give the same item.
type textMirror struct {
	t     Text
	stack []*yaml.Node
}

func newTextMirror() *textMirror {
	m := &textMirror{}
	m.t.Begin()
	m.stack = []*yaml.Node{{Kind: yaml.MappingNode}}
	return m
}

func (m *textMirror) top() *yaml.Node { return m.stack[len(m.stack)-1] }

// add puts v in the open collection, under key in a mapping.
func (m *textMirror) add(key string, v *yaml.Node) {
	if top := m.top(); top.Kind == yaml.MappingNode {
		top.Content = append(top.Content, str(key), v)
	} else {
		top.Content = append(top.Content, v)
	}
}

func (m *textMirror) String(k, v string) { m.t.String(k, v); m.add(k, str(v)) }
func (m *textMirror) Item(v string)      { m.t.Item(v); m.add("", str(v)) }
func (m *textMirror) Node(k string, n *yaml.Node) {
	m.t.Node(k, n)
	m.add(k, yaml.CopyYNode(n))
}

func (m *textMirror) open(k string, kind yaml.Kind) {
	if kind == yaml.MappingNode {
		m.t.Map(k)
	} else {
		m.t.List(k)
	}
	n := &yaml.Node{Kind: kind}
	m.add(k, n)
	m.stack = append(m.stack, n)
}

func (m *textMirror) End() {
	if len(m.stack) > 1 {
		m.t.End()
		m.stack = m.stack[:len(m.stack)-1]
	}
}

// check compares the Text's item with Encode's, when the Text says it is
// right; it reports whether it was.
func (m *textMirror) check(t *testing.T) bool {
	t.Helper()
	for len(m.stack) > 1 {
		m.End()
	}
	var text, enc Encoder
	got, ok := text.Text(&m.t)
	if !ok {
		return false
	}
	want, err := enc.Encode(yaml.NewRNode(m.stack[0]), "")
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if want.enc == nil {
		t.Fatalf("Text wrote what Encode leaves to yaml.v3:\n%s", got.enc)
	}
	if diff := cmp.Diff(string(want.enc), string(got.enc)); diff != "" {
		t.Fatalf("Text differs from Encode (-Encode +Text):\n%s", diff)
	}
	if diff := cmp.Diff(want.hdr, got.hdr); diff != "" {
		t.Fatalf("Text's header differs from Encode's (-Encode +Text):\n%s\n%s", diff, got.enc)
	}
	return true
}

func TestText(t *testing.T) {
	t.Parallel()
	upstream := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("repo"), str("catalog"), str("revision"), {Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: "2"},
		str("on"), {Kind: yaml.SequenceNode, Content: []*yaml.Node{str("yes"), str("a: b"), {Kind: yaml.MappingNode}}},
	}}
	m := newTextMirror()
	m.String("apiVersion", "config.porch.kpt.dev/v1alpha1")
	m.String("kind", "PackageVariant")
	m.open("metadata", yaml.MappingNode)
	m.String("name", "agent-edge")
	m.String("namespace", "default")
	m.open("labels", yaml.MappingNode)
	m.String("config.porch.kpt.dev/packagevariantset", "agent")
	m.End()
	m.open("annotations", yaml.MappingNode)
	m.String("config.kubernetes.io/path", "packagevariants/agent-edge.yaml")
	m.String("config.kubernetes.io/index", "3")
	m.End()
	m.End()
	m.open("spec", yaml.MappingNode)
	m.Node("upstream", upstream)
	m.open("empty", yaml.MappingNode)
	m.End()
	m.open("none", yaml.SequenceNode)
	m.End()
	m.open("removeKeys", yaml.SequenceNode)
	m.Item("yes")
	m.Item("0x1F")
	m.Item("#x")
	m.End()
	m.open("injectors", yaml.SequenceNode)
	m.open("", yaml.MappingNode)
	m.String("kind", "ConfigMap")
	m.String("name", "1.5")
	m.End()
	m.open("", yaml.MappingNode)
	m.End()
	m.open("", yaml.MappingNode)
	m.open("deep", yaml.MappingNode)
	m.String("k", "v")
	if !m.check(t) {
		t.Fatalf("Text declined a plain PackageVariant:\n%s", m.t.b.String())
	}

	for name, write := range map[string]func(m *textMirror){
		"empty string":        func(m *textMirror) { m.String("a", "") },
		"not ASCII":           func(m *textMirror) { m.String("a", "é") },
		"metadata as string":  func(m *textMirror) { m.String("metadata", "x") },
		"labels as list":      func(m *textMirror) { m.open("metadata", yaml.MappingNode); m.open("labels", yaml.SequenceNode) },
		"a node for metadata": func(m *textMirror) { m.Node("metadata", upstream) },
		"a list in a list":    func(m *textMirror) { m.open("l", yaml.SequenceNode); m.open("", yaml.SequenceNode) },
		"a comment":           func(m *textMirror) { m.Node("c", &yaml.Node{Kind: yaml.ScalarNode, Value: "x", LineComment: "# c"}) },
		"closing the item":    func(m *textMirror) { m.t.End() },
	} {
		m := newTextMirror()
		write(m)
		if m.check(t) {
			t.Errorf("%s: Text should decline", name)
		}
	}
}

// A Text used out of order declines; it does not panic.
func TestTextMisused(t *testing.T) {
	t.Parallel()
	var (
		tx Text
		e  Encoder
	)
	tx.End()
	tx.String("a", "b")
	tx.Item("c")
	tx.Map("d")
	tx.List("e")
	tx.Node("f", str("g"))
	if _, ok := e.Text(&tx); ok {
		t.Error("a Text never begun gave an item")
	}
}

// FuzzText drives a Text and the nodes it stands for with the same calls,
// picked by the input: whenever the Text says its item is right, it is
// Encode's, bytes and header.
func FuzzText(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "apiVersion\nkind\nmetadata\nname\nlabels\nannotations\nconfig.kubernetes.io/path\nyes\n1\nx")
	f.Add([]byte{2, 2, 9, 0, 17, 33, 3, 3, 1, 5, 4, 2, 6}, "metadata\nlabels\na\nb: c\n~\nnull\nrepo")
	f.Add([]byte{1, 0, 1, 0, 3, 0, 3, 24, 40, 2, 5, 4, 11, 3, 3, 26}, "- a\n'q'\n\"d\"\nno\non\n0x1F\n1e3\n---")
	f.Fuzz(func(t *testing.T, ops []byte, words string) {
		dict := append(strings.Split(words, "\n"), "apiVersion", "kind", "metadata", "name", "namespace", "labels", "annotations",
			"config.kubernetes.io/path", "config.kubernetes.io/index", "internal.config.kubernetes.io/path")
		word := func(i int) string { return dict[i%len(dict)] }
		nodes := []*yaml.Node{
			str("yes"),
			{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: "2"},
			{Kind: yaml.MappingNode, Content: []*yaml.Node{str("a"), str("on"), str("b"), {Kind: yaml.SequenceNode, Content: []*yaml.Node{str("x"), {Kind: yaml.MappingNode}}}}},
			{Kind: yaml.SequenceNode},
		}
		m := newTextMirror()
		for i := 0; i+1 < len(ops) && len(m.stack) < 110; i += 2 {
			op, arg := ops[i]%8, int(ops[i+1])
			listOpen := m.top().Kind == yaml.SequenceNode
			switch {
			case op == 0 && !listOpen:
				m.String(word(arg), word(arg/7+1))
			case op == 1 && !listOpen:
				m.open(word(arg), yaml.MappingNode)
			case op == 2 && !listOpen:
				m.open(word(arg), yaml.SequenceNode)
			case op == 3:
				m.End()
			case op == 4 && listOpen:
				m.Item(word(arg))
			case op == 5 && listOpen:
				m.open("", yaml.MappingNode)
			case op == 6 && !listOpen:
				m.Node(word(arg), nodes[arg%len(nodes)])
			}
		}
		m.check(t)
	})
}

// Text's items read back through the list like any other new item.
func TestTextAdded(t *testing.T) {
	t.Parallel()
	rl, err := Parse([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		e  Encoder
		tx Text
	)
	tx.Begin()
	tx.String("apiVersion", "v1")
	tx.String("kind", "ConfigMap")
	tx.Map("metadata")
	tx.String("name", "a")
	tx.End()
	enc, ok := e.Text(&tx)
	if !ok {
		t.Fatal("Text declined")
	}
	it := rl.AddEncoded(enc)
	if h := it.Header(); h.Name != "a" || h.Kind != "ConfigMap" {
		t.Errorf("header %+v", h)
	}
	out, err := rl.Write()
	if err != nil {
		t.Fatal(err)
	}
	if want := "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"; !bytes.Contains(out, []byte(want)) {
		t.Errorf("output:\n%s\nwant it to contain:\n%s", out, want)
	}
}
