package render

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestDefaultPathsAsKyaml: defaultPaths changes items exactly as kyaml's
// DefaultPathAnnotation does.
func TestDefaultPathsAsKyaml(t *testing.T) {
	t.Parallel()
	docs := []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    config.kubernetes.io/path: x.yaml\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    internal.config.kubernetes.io/path: y.yaml\n    config.kubernetes.io/path: y.yaml\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  annotations:\n    internal.config.kubernetes.io/path: y.yaml\n    config.kubernetes.io/path: y.yaml\n    config.k8s.io/id: '3'\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e\n  annotations:\n    internal.config.kubernetes.io/path: y.yaml\n    config.kubernetes.io/path: y.yaml\n    internal.config.kubernetes.io/index: '0'\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  annotations:\n    a: [x]\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: g, annotations: {internal.config.kubernetes.io/path: z.yaml, config.kubernetes.io/path: z.yaml}}\n",
	}
	for _, d := range docs {
		want, err := yaml.Parse(d)
		if err != nil {
			t.Fatal(err)
		}
		got := want.Copy()
		werr := kioutil.DefaultPathAnnotation("fns", []*yaml.RNode{want})
		gerr := defaultPaths("fns", []*yaml.RNode{got})
		if (werr == nil) != (gerr == nil) || want.MustString() != got.MustString() {
			t.Errorf("%s: got\n%s(%v)\nwant\n%s(%v)", d, got.MustString(), gerr, want.MustString(), werr)
		}
	}
}

// TestSnapshot: a snapshot is the same tree, and shares no node.
func TestSnapshot(t *testing.T) {
	t.Parallel()
	n, err := yaml.Parse("# head\na: &x [1, {b: c}] # line\nd: *x\ne: |\n  block\n")
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot(n.YNode())
	if !kptpkg.SameNode(n.YNode(), s) {
		t.Fatal("the snapshot differs")
	}
	s.Content[1].Content[0].Value = "changed"
	if n.YNode().Content[1].Content[0].Value == "changed" {
		t.Error("the snapshot shares nodes with its original")
	}
}

// FuzzSettled: when settled says kyaml's comment copier and order sync
// would leave an output item as it is, they do.
func FuzzSettled(f *testing.F) {
	base := "apiVersion: v1 # api\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: y}\ndata:\n  # head\n  k: v # line\n  list:\n  - name: n # c\n    v: 1\n  - b\n  s: >\n    folded\n"
	f.Add(base, base)
	f.Add(base, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata:\n  k: v\n")
	f.Add(base, "kind: ConfigMap\napiVersion: v1 # api\nmetadata:\n  name: a\n")
	f.Add("a:\n- # c\n  x: 1\n", "a:\n- x: 1\n  y: 2\n")
	f.Add("l: [a, b] # c\n", "l: [b, a] # c\n")
	f.Fuzz(func(t *testing.T, from, to string) {
		fn, err := yaml.Parse(from)
		if err != nil {
			return
		}
		tn, err := yaml.Parse(to)
		if err != nil || !settled(fn.YNode(), tn.YNode()) {
			return
		}
		after := tn.Copy()
		if comments.CopyComments(fn, after) != nil || order.SyncOrder(fn, after) != nil {
			return
		}
		if !kptpkg.SameNode(tn.YNode(), after.YNode()) {
			t.Fatalf("settled, but kyaml changes it:\nfrom:\n%s\nto:\n%s\nafter:\n%s", from, to, after.MustString())
		}
	})
}

// TestAnnotationsAsKyaml: setting and clearing annotations on the node
// gives what kyaml's SetAnnotation and ClearAnnotation give.
func TestAnnotationsAsKyaml(t *testing.T) {
	t.Parallel()
	docs := []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    x: y # c\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    k: 0\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    k: '1' # c\n    x: y\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    k: '1'\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    k: [1]\n",
		"apiVersion: v1\nkind: ConfigMap\n",
	}
	for _, d := range docs {
		for _, v := range []string{"1", "0", "two words", "multi\nline"} {
			want, err := yaml.Parse(d)
			if err != nil {
				t.Fatal(err)
			}
			got := want.Copy()
			werr := want.PipeE(yaml.SetAnnotation("k", v))
			gerr := setAnnotation(got, "k", v)
			if (werr == nil) != (gerr == nil) || want.MustString() != got.MustString() || !kptpkg.SameNode(want.YNode(), got.YNode()) {
				t.Errorf("set k=%q on\n%sgot\n%s(%v)\nwant\n%s(%v)", v, d, got.MustString(), gerr, want.MustString(), werr)
			}
			werr = want.PipeE(yaml.ClearAnnotation("k"))
			gerr = clearAnnotation(got, "k")
			if (werr == nil) != (gerr == nil) || !kptpkg.SameNode(want.YNode(), got.YNode()) {
				t.Errorf("clear k on\n%sgot\n%s(%v)\nwant\n%s(%v)", d, got.MustString(), gerr, want.MustString(), werr)
			}
		}
	}
}
