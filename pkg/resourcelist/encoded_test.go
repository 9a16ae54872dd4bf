package resourcelist_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// newItems are items a function might add: odd's items (comments, quoting,
// flow style, block scalars), one with strings YAML 1.1 misreads, one with a
// block scalar holding blank lines, and one with text beyond ASCII.
func newItems(t *testing.T) []*yaml.RNode {
	t.Helper()
	rl, err := resourcelist.Parse([]byte(odd))
	if err != nil {
		t.Fatal(err)
	}
	var out []*yaml.RNode
	for _, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
		out = append(out, it.Node())
	}
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ambiguous\ndata:\n  a: 'yes'\n  b: '1'\n  c: '~'\n  d: plain\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blank-lines\ndata:\n  script: |\n    one\n\n    two\n\n\n    three\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unicode\n  labels: {lang: \"日本語\"}\ndata:\n  emoji: \"🙂 ok\"\n",
	} {
		out = append(out, yaml.MustParse(s))
	}
	return out
}

// An encoded item comes out as Append would write it, in every list
// layout; reading it back gives the same item and header.
func TestAddEncoded(t *testing.T) {
	t.Parallel()
	lists := map[string]string{
		"odd":         odd,
		"wide":        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: A\n    metadata:\n      name: a\n",
		"flow":        "{apiVersion: config.kubernetes.io/v1, kind: ResourceList, items: [{apiVersion: v1, kind: A, metadata: {name: a}}]}\n",
		"empty items": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
		"no items":    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n",
	}
	for name, in := range lists {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			write := func(encoded bool) (string, []resourcelist.Header, []string) {
				rl, err := resourcelist.Parse([]byte(in))
				if err != nil {
					t.Fatal(err)
				}
				var (
					headers []resourcelist.Header
					nodes   []string
				)
				var enc resourcelist.Encoder
				for i, n := range newItems(t) {
					add := rl.Append
					if encoded {
						add = func(n *yaml.RNode, path string) (*resourcelist.Item, error) { return addEncoded(rl, &enc, n, path) }
					}
					it, err := add(n, fmt.Sprintf("new/%d.yaml", i))
					if err != nil {
						t.Fatal(err)
					}
					headers = append(headers, it.Header())
				}
				out, err := rl.Write()
				if err != nil {
					t.Fatal(err)
				}
				// Read after writing: Write quotes what YAML 1.1 would
				// misread, the Encoder did when it was called.
				for _, it := range rl.Select(func(h resourcelist.Header) bool { return h.Position < 0 }) {
					nodes = append(nodes, it.Node().MustString())
				}
				return string(out), headers, nodes
			}
			want, wantHeaders, wantNodes := write(false)
			got, gotHeaders, gotNodes := write(true)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-Append +AddEncoded):\n%s", diff)
			}
			if diff := cmp.Diff(wantHeaders, gotHeaders); diff != "" {
				t.Errorf("headers (-Append +AddEncoded):\n%s", diff)
			}
			if diff := cmp.Diff(wantNodes, gotNodes); diff != "" {
				t.Errorf("items read back (-Append +AddEncoded):\n%s", diff)
			}
		})
	}
}

// addEncoded adds n to rl encoded by enc.
func addEncoded(rl *resourcelist.ResourceList, enc *resourcelist.Encoder, n *yaml.RNode, path string) (*resourcelist.Item, error) {
	e, err := enc.Encode(n, path)
	if err != nil {
		return nil, err
	}
	return rl.AddEncoded(e), nil
}

// An encoded item can still be edited or deleted, and its maker's nodes
// are not the list's any more: changing them changes nothing. Read parses
// it anew each time (nothing kept).
func TestAddEncodedThenChange(t *testing.T) {
	t.Parallel()
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
	rl, err := resourcelist.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var enc resourcelist.Encoder
	add := func(name string) (*resourcelist.Item, *yaml.RNode) {
		n := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + " # " + name + "\n")
		if name != "commented" {
			n.YNode().Content[5].Content[1].LineComment = ""
		}
		it, err := addEncoded(rl, &enc, n, name+".yaml")
		if err != nil {
			t.Fatal(err)
		}
		return it, n
	}
	edited, _ := add("edited")
	deleted, _ := add("deleted")
	kept, reused := add("kept")
	if kept.Read().YNode() == kept.Read().YNode() {
		t.Errorf("Read kept the nodes it built for an encoded item nobody had read")
	}
	_, reusedCommented := add("commented") // kept as a copy of its nodes
	setString(t, edited.Edit(), "data.x", "y")
	rl.Delete(deleted)
	setString(t, reused, "metadata.name", "changed-by-its-maker")
	setString(t, reusedCommented, "metadata.name", "changed-by-its-maker")
	out, err := rl.Write()
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: edited
    annotations:
      config.kubernetes.io/path: 'edited.yaml'
  data:
    x: "y"
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kept
    annotations:
      config.kubernetes.io/path: 'kept.yaml'
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: commented # commented
    annotations:
      config.kubernetes.io/path: 'commented.yaml'
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if got := strings.Count(string(out), "deleted"); got != 0 {
		t.Errorf("the deleted item is written %d times", got)
	}
}
