package fieldpath_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
)

const doc = `apiVersion: v1
kind: ConfigMap # the kind
metadata:
  name: 'cm'
data:
  a: "1" # quoted
  b: x
`

func TestEdits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(n *yaml.RNode) error
		want string
	}{{
		name: "set an existing scalar keeps its place, comment and quoting",
		edit: func(n *yaml.RNode) error { return fieldpath.SetString(n, fieldpath.Parse("data.a"), "2") },
		want: "apiVersion: v1\nkind: ConfigMap # the kind\nmetadata:\n  name: 'cm'\ndata:\n  a: \"2\" # quoted\n  b: x\n",
	}, {
		name: "set creates the mappings on the way, appended",
		edit: func(n *yaml.RNode) error {
			return fieldpath.SetString(n, fieldpath.Parse("metadata.annotations.x"), "y")
		},
		want: "apiVersion: v1\nkind: ConfigMap # the kind\nmetadata:\n  name: 'cm'\n  annotations:\n    x: y\ndata:\n  a: \"1\" # quoted\n  b: x\n",
	}, {
		name: "new strings are tagged so that numbers stay strings",
		edit: func(n *yaml.RNode) error { return fieldpath.SetString(n, fieldpath.Parse("data.c"), "3") },
		want: "apiVersion: v1\nkind: ConfigMap # the kind\nmetadata:\n  name: 'cm'\ndata:\n  a: \"1\" # quoted\n  b: x\n  c: \"3\"\n",
	}, {
		name: "remove a field, a missing one is fine",
		edit: func(n *yaml.RNode) error {
			if err := fieldpath.Remove(n, fieldpath.Parse("data.b")); err != nil {
				return err
			}
			return fieldpath.Remove(n, fieldpath.Parse("spec.nothing"))
		},
		want: "apiVersion: v1\nkind: ConfigMap # the kind\nmetadata:\n  name: 'cm'\ndata:\n  a: \"1\" # quoted\n",
	}, {
		name: "set a list",
		edit: func(n *yaml.RNode) error {
			return fieldpath.Set(n, fieldpath.Parse("data.list"), fieldpath.NewStringList([]string{"on", "b"}))
		},
		want: "apiVersion: v1\nkind: ConfigMap # the kind\nmetadata:\n  name: 'cm'\ndata:\n  a: \"1\" # quoted\n  b: x\n  list:\n  - on\n  - b\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, err := yaml.Parse(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.edit(n); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, n.MustString()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLookupAndErrors(t *testing.T) {
	t.Parallel()
	n, err := yaml.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := fieldpath.String(n, fieldpath.Parse("metadata.name")); !ok || v != "cm" {
		t.Errorf("String(metadata.name) = %q, %v", v, ok)
	}
	if _, ok := fieldpath.String(n, fieldpath.Parse("data")); ok {
		t.Errorf("String(data) found a string in a mapping")
	}
	if got := fieldpath.Lookup(n, fieldpath.Parse("kind.x")); got != nil {
		t.Errorf("Lookup through a scalar = %v, want nil", got)
	}
	err = fieldpath.SetString(n, fieldpath.Parse("kind.x"), "y")
	if err == nil || err.Error() != "kind is not a mapping" {
		t.Errorf("SetString through a scalar: error %v", err)
	}
	if got := fieldpath.Keys(fieldpath.Lookup(n, fieldpath.Parse("data"))); !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("Keys(data) = %v", got)
	}
	if got := fieldpath.Parse("spec.pipeline").Child("mutators").Index(2).String(); got != "spec.pipeline.mutators[2]" {
		t.Errorf("path = %q", got)
	}
}

func TestField(t *testing.T) {
	t.Parallel()
	m := yaml.MustParse("a: 1\nb: {c: 2}\n").YNode()
	tests := []struct {
		m    *yaml.Node
		key  string
		want string
	}{
		{m, "a", "1"},
		{m, "b", "{c: 2}\n"},
		{m, "missing", "<nil>"},
		{m.Content[1], "a", "<nil>"}, // a scalar is no mapping
		{nil, "a", "<nil>"},
	}
	for _, tt := range tests {
		got := "<nil>"
		if n := fieldpath.Field(tt.m, tt.key); n != nil {
			got = yaml.NewRNode(n).MustString()
			if n.Kind == yaml.ScalarNode {
				got = n.Value
			}
		}
		if got != tt.want {
			t.Errorf("Field(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
