package resourcelist_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// ParseDocuments reads documents as a list's items, each entry the
// document indented, its nodes those the document reads as; Entry gives an
// item's bytes while the list holds it as bytes.
func TestParseDocuments(t *testing.T) {
	t.Parallel()
	docs := []string{
		"apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: edge0001\n  labels: {nephio.org/site-type: edge}\nspec:\n  git: {repo: https://git.example.com/x.git, branch: main}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # the name\ndata:\n  script: |\n    one\n\n    two\n",
		"# a comment first\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
	}
	rl, err := resourcelist.ParseDocuments(docs, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config\n")
	if err != nil {
		t.Fatal(err)
	}
	type item struct{ Name, Entry, Node string }
	var got []item
	for _, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
		e, _ := it.Entry()
		got = append(got, item{it.Header().Name, string(e), it.Read().MustString()})
	}
	want := []item{
		{"edge0001", "- apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: Repository\n  metadata:\n    name: edge0001\n    labels: {nephio.org/site-type: edge}\n  spec:\n    git: {repo: https://git.example.com/x.git, branch: main}\n",
			"apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: edge0001\n  labels: {nephio.org/site-type: edge}\nspec:\n  git: {repo: 'https://git.example.com/x.git', branch: main}\n"},
		{"a", "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a # the name\n  data:\n    script: |\n      one\n\n      two\n", docs[1]},
		{"b", "- # a comment first\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n", docs[2]},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if name := rl.FunctionConfig().GetName(); name != "config" {
		t.Errorf("functionConfig: %q", name)
	}
	it := rl.Select(func(h resourcelist.Header) bool { return h.Name == "a" })[0]
	_ = it.Edit().PipeE(yaml.SetLabel("x", "y"))
	if e, ok := it.Entry(); ok {
		t.Errorf("an edited item still has its entry: %q", e)
	}
	empty, err := resourcelist.ParseDocuments(nil, "")
	if err != nil || empty.Len() != 0 {
		t.Errorf("no documents: %d items, %v", empty.Len(), err)
	}
}
