package kptfile_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptfile"
)

func TestPlaceField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, field, want string }{
		{"apiVersion: v1\nkind: Kptfile\nmetadata: {}\nstatus: {}\n", "upstream", "apiVersion: v1\nkind: Kptfile\nmetadata: {}\nupstream: {}\nstatus: {}\n"},
		{"apiVersion: v1\nkind: Kptfile\nmetadata: {}\ninfo: {}\n", "upstreamLock", "apiVersion: v1\nkind: Kptfile\nmetadata: {}\nupstreamLock: {}\ninfo: {}\n"},
		{"apiVersion: v1\nkind: Kptfile\ninventory: {}\nmetadata: {}\n", "pipeline", "apiVersion: v1\nkind: Kptfile\npipeline: {}\ninventory: {}\nmetadata: {}\n"},
		{"apiVersion: v1\nkind: Kptfile\n", "pipeline", "apiVersion: v1\nkind: Kptfile\npipeline: {}\n"},
	} {
		n, err := yaml.Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.PipeE(yaml.SetField(c.field, yaml.NewMapRNode(nil))); err != nil {
			t.Fatal(err)
		}
		kptfile.PlaceField(n.YNode(), c.field)
		if diff := cmp.Diff(c.want, n.MustString()); diff != "" {
			t.Errorf("%s into %q (-want +got):\n%s", c.field, c.in, diff)
		}
	}
}

func TestOrder(t *testing.T) {
	t.Parallel()
	// The input's keys keep their places (even where kpt would write them
	// elsewhere: info before metadata here); new keys (no line) go before
	// the first key kpt writes after them, at every depth, or in sorted
	// order in maps; keys kpt does not know go last.
	in := `apiVersion: kpt.dev/v1
kind: Kptfile
info:
  description: d
metadata:
  name: app
  annotations:
    b: "1"
    d: "1"
pipeline:
  mutators:
    - name: fn
      configMap:
        b: x
`
	n, err := yaml.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	set := func(path string, v *yaml.RNode) {
		t.Helper()
		if err := n.PipeE(yaml.LookupCreate(yaml.MappingNode, strings.Split(path, ".")[:strings.Count(path, ".")]...), yaml.SetField(path[strings.LastIndex(path, ".")+1:], v)); err != nil {
			t.Fatal(err)
		}
	}
	str := yaml.NewStringRNode
	set("x-unknown", str("u"))
	set("status.conditions", yaml.NewListRNode())
	set("upstream.updateStrategy", str("resource-merge"))
	set("upstream.type", str("git"))
	set("metadata.annotations.a", str("1"))
	set("metadata.annotations.c", str("1"))
	set("metadata.labels", yaml.NewMapRNode(&map[string]string{"l": "1"}))
	set("info.site", str("s"))
	fn, err := n.Pipe(yaml.Lookup("pipeline", "mutators", "[name=fn]"))
	if err != nil || fn == nil {
		t.Fatal(err)
	}
	if err := fn.PipeE(yaml.SetField("image", str("i"))); err != nil {
		t.Fatal(err)
	}
	if err := fn.PipeE(yaml.Lookup("configMap"), yaml.SetField("a", str("y"))); err != nil {
		t.Fatal(err)
	}
	kptfile.Order(n.YNode(), func(k *yaml.Node) bool { return k.Line == 0 })
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
upstream:
  type: git
  updateStrategy: resource-merge
info:
  site: s
  description: d
metadata:
  name: app
  labels:
    l: 1
  annotations:
    a: "1"
    b: "1"
    c: "1"
    d: "1"
pipeline:
  mutators:
  - image: i
    name: fn
    configMap:
      a: "y"
      b: x
status:
  conditions: []
x-unknown: u
`
	if diff := cmp.Diff(want, n.MustString()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
