package resourcelist

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestScan: what the scan reads of an entry, or that it is unsure (and
// leaves the entry to yaml.v3).
func TestScan(t *testing.T) {
	t.Parallel()
	web := Header{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "prod"}
	tests := []struct {
		name  string
		entry string
		want  *Header // nil: unsure
	}{
		{"block", "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n    namespace: prod\n", &web},
		{"dash alone, wide indentation", "  -\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n      namespace: prod\n", &web},
		{"metadata last, quoted keys and values", "- spec: {replicas: 3}\n  \"kind\": 'Deployment'\n  apiVersion: \"apps/v1\"\n  metadata:\n    'name': web # a comment\n    namespace: \"prod\"\n", &web},
		{"flow item", "- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: prod}}\n", &web},
		{"labels and annotations", "- kind: A\n  metadata:\n    labels: {app: web, tier: \"1\"}\n    annotations:\n      config.kubernetes.io/path: 'a/b.yaml'\n      config.kubernetes.io/index: '2'\n      empty:\n      tilde: ~\n      it: 'it''s'\n      esc: \"a\\\"b\\\\c\"\n",
			&Header{Kind: "A", Labels: map[string]string{"app": "web", "tier": "1"}, Annotations: map[string]string{
				"config.kubernetes.io/path": "a/b.yaml", "config.kubernetes.io/index": "2", "empty": "", "tilde": "~", "it": "it's", "esc": `a"b\c`,
			}, Path: "a/b.yaml", Index: 2}},
		{"null and collection header values", "- apiVersion: ~\n  kind: [A]\n  metadata:\n    name:\n    labels: []\n    annotations: {}\n", &Header{Annotations: map[string]string{}}},
		{"block scalars, comments, CRLF", "- kind: A # k\r\n  # above data\r\n  data:\r\n    script: |-\r\n      #!/bin/sh\r\n\r\n      echo \"hi\r\n    other: >\r\n      folded\r\n", &Header{Kind: "A"}},
		{"tabs in a block scalar", "- kind: A\n  data:\n    x: |\n      a\tb\n", &Header{Kind: "A"}},
		{"indentless sequences", "- kind: A\n  spec:\n    list:\n    - a\n    - b: c\n      d: e\n    next: f\n", &Header{Kind: "A"}},
		{"duplicate header key", "- kind: A\n  metadata:\n    name: a\n    name: b\n", nil},
		{"duplicate label", "- kind: A\n  metadata:\n    labels: {a: b, a: c}\n", nil},
		{"block scalar in a header field", "- kind: A\n  metadata:\n    annotations:\n      note: |\n        text\n", nil},
		{"multi-line plain scalar", "- kind: A\n  spec:\n    x: one\n      two\n", nil},
		{"multi-line quoted scalar", "- kind: A\n  spec:\n    x: \"one\n      two\"\n", nil},
		{"multi-line flow", "- kind: A\n  spec:\n    x: [a,\n      b]\n", nil},
		{"tag", "- kind: !!str A\n", nil},
		{"anchor", "- kind: &k A\n", nil},
		{"tab outside a block scalar", "- kind: A\n  spec:\n    x:\ta\n", nil},
		{"scalar item", "- 42\n", nil},
		{"sequence item", "- - a\n", nil},
		{"mapping value in a plain scalar", "- kind: a: b\n", nil},
		{"unusual escape", "- kind: \"\\u0041\"\n", nil},
		{"bad indentation", "- kind: A\n  spec:\n      a: 1\n    b: 2\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := []byte(tc.entry)
			var s itemScan
			ok := s.scan(src, 0, len(src), spaces(src))
			if (tc.want != nil) != ok {
				t.Fatalf("scan sure = %v, want %v", ok, tc.want != nil)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(*tc.want, s.result().header(0)); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			nodes, ok := parseEntries(src, 1, 1)
			if !ok {
				t.Fatal("yaml.v3 does not read the entry")
			}
			if diff := cmp.Diff(readHeader(yaml.NewRNode(nodes[0]), 0), s.result().header(0)); diff != "" {
				t.Errorf("header (-yaml.v3 +scan):\n%s", diff)
			}
		})
	}
}
