package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fields are the header fields the scan reads of an item.
type fields struct {
	APIVersion, Kind, Name, Namespace string
	Labels, Annotations               map[string]string
}

// scanned returns the fields the scan read.
func scanned(s *Item) fields {
	return fields{s.APIVersion(), s.Kind(), s.Name(), s.Namespace(), s.Labels(), s.Annotations()}
}

// TestScan: what the scan reads of an entry, or that it is unsure (and
// leaves the entry to yaml.v3); what it reads is what yaml.v3 reads.
func TestScan(t *testing.T) {
	t.Parallel()
	web := fields{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "prod"}
	tests := []struct {
		name  string
		entry string
		want  *fields // nil: unsure
	}{
		{"block", "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n    namespace: prod\n", &web},
		{"dash alone, wide indentation", "  -\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n      namespace: prod\n", &web},
		{"metadata last, quoted keys and values", "- spec: {replicas: 3}\n  \"kind\": 'Deployment'\n  apiVersion: \"apps/v1\"\n  metadata:\n    'name': web # a comment\n    namespace: \"prod\"\n", &web},
		{"flow item", "- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: prod}}\n", &web},
		{"labels and annotations", "- kind: A\n  metadata:\n    labels: {app: web, tier: \"1\"}\n    annotations:\n      config.kubernetes.io/path: 'a/b.yaml'\n      config.kubernetes.io/index: '2'\n      empty:\n      tilde: ~\n      it: 'it''s'\n      esc: \"a\\\"b\\\\c\"\n",
			&fields{Kind: "A", Labels: map[string]string{"app": "web", "tier": "1"}, Annotations: map[string]string{
				"config.kubernetes.io/path": "a/b.yaml", "config.kubernetes.io/index": "2", "empty": "", "tilde": "~", "it": "it's", "esc": `a"b\c`,
			}}},
		{"null and collection header values", "- apiVersion: ~\n  kind: [A]\n  metadata:\n    name:\n    labels: []\n    annotations: {}\n", &fields{Annotations: map[string]string{}}},
		{"block scalars, comments, CRLF", "- kind: A # k\r\n  # above data\r\n  data:\r\n    script: |-\r\n      #!/bin/sh\r\n\r\n      echo \"hi\r\n    other: >\r\n      folded\r\n", &fields{Kind: "A"}},
		{"tabs in a block scalar", "- kind: A\n  data:\n    x: |\n      a\tb\n", &fields{Kind: "A"}},
		{"indentless sequences", "- kind: A\n  spec:\n    list:\n    - a\n    - b: c\n      d: e\n    next: f\n", &fields{Kind: "A"}},
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
			var s Scanner
			ok := s.Scan(src, 0, len(src), spaces(src))
			if (tc.want != nil) != ok {
				t.Fatalf("scan sure = %v, want %v", ok, tc.want != nil)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(*tc.want, scanned(s.Item())); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			n, ok := v3Entry(src, 1)
			if !ok {
				t.Fatal("yaml.v3 does not read the entry")
			}
			if diff := cmp.Diff(v3Fields(n), scanned(s.Item())); diff != "" {
				t.Errorf("header (-yaml.v3 +scan):\n%s", diff)
			}
		})
	}
}

// checkScan holds the scan to yaml.v3 over the entries Split finds in
// in (SplitScan finds the same, and reads each as Scan does): an entry
// the scan is sure of is one item to yaml.v3 read alone, with the header
// the scan read, and the nodes Build makes of it are yaml.v3's, every
// field of every node (lines and columns the list's).
func checkScan(t *testing.T, in []byte) {
	t.Helper()
	l, ok := Split(in)
	if !ok {
		return
	}
	var s, fs Scanner
	fused, ok := SplitScan(in, &fs)
	if !ok {
		t.Fatalf("Split is sure of the list, SplitScan not\ninput:\n%s", in)
	}
	if diff := cmp.Diff(l, fused, cmpopts.IgnoreUnexported(List{})); diff != "" {
		t.Fatalf("List (-Split +SplitScan):\n%s\ninput:\n%s", diff, in)
	}
	for i, e := range l.Entries {
		start, end := int(e.Start), int(e.End)
		sure := s.Scan(in, start, end, l.SeqCol)
		fi, comment := fused.Item(i)
		if sure != (fi != nil) || sure && s.Comment() != comment {
			t.Fatalf("entry %d: Scan sure = %v, SplitScan not, or not of the comment\ninput:\n%s", i, sure, in)
		}
		if !sure {
			continue
		}
		item := s.Item()
		if diff := cmp.Diff(scanned(item), scanned(fi)); diff != "" || item.Nodes() != fi.Nodes() || item.Path() != fi.Path() {
			t.Fatalf("entry %d: item (-Scan +SplitScan):\n%s\ninput:\n%s", i, diff, in)
		}
		n, ok := v3Entry(in[start:end], int(e.Line))
		if !ok {
			t.Fatalf("entry %d: the scan is sure of an entry yaml.v3 does not read as one item\ninput:\n%s", i, in)
		}
		if diff := cmp.Diff(v3Fields(n), scanned(item)); diff != "" {
			t.Fatalf("entry %d: header (-yaml.v3 +scan):\n%s\ninput:\n%s", i, diff, in)
		}
		var b Scanner
		built := b.Build(in, start, end, l.SeqCol, int(e.Line), item.Nodes())
		if built == nil {
			continue // comment lines, or what the builder does not make
		}
		if d := sameNodes(n, built, fmt.Sprintf("entry %d", i)); d != "" {
			t.Fatalf("nodes differ (yaml.v3, then Build): %s\ninput:\n%s", d, in)
		}
	}
}

// TestBuildComments: a comment after a key whose value is a collection on
// the lines below (kpt's `metadata: # kpt-merge: /name`) is built as
// yaml.v3 reads it, on the key; before a null value, or on a line of its
// own, the builder declines (yaml.v3 parses the entry).
func TestBuildComments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry string
		built bool
	}{
		{"- apiVersion: v1\n  kind: ConfigMap\n  metadata: # kpt-merge: /a\n    name: a\n  data: # d\n    k: v\n", true},
		{"- metadata: # kpt-merge: /a\n    name: a\n", true},
		{"- spec:\n    list: # compact\n    - a\n    - b\n    deep: # deeper\n      - c\n    m: # flow below\n      x: {a: b}\n", true},
		{"- a: # before a null\n  b: c\n", false},
		{"- a: b\n  c: # at the end\n", false},
		{"- metadata: # c\n    # a comment line\n    name: a\n", false},
		{"- # after the dash\n  a: b\n", false},
	}
	for _, tc := range tests {
		src := []byte(tc.entry)
		var s Scanner
		if !s.Scan(src, 0, len(src), 0) {
			t.Fatalf("the scan is unsure of %q", tc.entry)
		}
		var b Scanner
		built := b.Build(src, 0, len(src), 0, 1, s.Item().Nodes())
		if (built != nil) != tc.built {
			t.Fatalf("built %q: %v, want %v", tc.entry, built != nil, tc.built)
		}
		if built == nil {
			continue
		}
		n, ok := v3Entry(src, 1)
		if !ok {
			t.Fatalf("yaml.v3 does not read %q", tc.entry)
		}
		if d := sameNodes(n, built, "item"); d != "" {
			t.Errorf("%q: nodes differ (yaml.v3, then Build): %s", tc.entry, d)
		}
	}
}

// scanSeeds are lists in the shapes the scan must get right or refuse.
var scanSeeds = []string{
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a # the name\n    namespace: ns\n    labels:\n      app: web\n      'quoted': \"v\\\"1\"\n    annotations:\n      config.kubernetes.io/path: 'a.yaml'\n      empty:\n      null: ~\n  data:\n    script: |\n      #!/bin/sh\n      echo \"hi\n\n    n: 3 # three\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: b, labels: {app: web, tier: \"1\"}}\n  spec:\n    containers:\n    - name: c\n      args: [\"--a\", '--b', c]\n      env:\n      - {name: X, value: \"no\"}\n",
	"apiVersion: config.kubernetes.io/v1\r\nkind: ResourceList\r\nitems:\r\n  - apiVersion: v1\r\n    kind: A\r\n    metadata:\r\n      name: a\r\n  -\r\n    kind: B\r\n    data:\r\n      x: |-\r\n        one\r\n\r\n        two\r\n",
	"items:\n# lead\n- kind: A\n  spec:\n    list:\n    - a\n    - b: c\n  # inside end\n# between\n- kind: B\n  x: 'it''s'\n  y: [a, {b: c}]\napiVersion: config.kubernetes.io/v1\n",
	"items:\n- kind: A\n  metadata: # kpt-merge: /a\n    name: a\n  spec: # s\n    l: # l\n    - x\n    n: # n\n  x: # x\n    - {a: b}\n- kind: B\n  c: # at the end\n",
	"items:\n- kind: Repository\n  metadata: {name: r, labels: {nephio.org/site-type: edge}}\n  spec:\n    git: {repo: https://git.example.com/fleet/edge0001.git, branch: main}\n    l: [a:b, 'c:d', e:f:g, h?i, j:, k:,l]\n    m: {a: b:}\n",
	"items:\n- kind: A\n  data:\n    a: 1\n    b: 2\n    c: 3\n    d: 4\n    e: 5\n    f: 6\n    g: 7\n    h: 8\n    i: 9\n    \"a\": 10\n- kind: B\n  metadata: {labels: {a: b, a: c}}\n",
}

// FuzzScan holds the scan to yaml.v3 entry by entry (checkScan).
func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	golden, _ := filepath.Glob(filepath.Join("..", "..", "..", "*", "testdata", "*", "resourcelist.yaml"))
	for _, p := range golden {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(checkScan)
}

// v3Entry parses an entry of the items sequence (text, starting at line)
// alone with yaml.v3 and returns its node, with the lines it has in the
// list.
func v3Entry(text []byte, line int) (*yaml.Node, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) != 1 {
		return nil, false
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode || len(seq.Content) != 1 {
		return nil, false
	}
	shiftLines(seq, line-1)
	return seq.Content[0], true
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// v3Fields reads the header fields from an item's nodes, as
// resourcelist's header does: the first of a key written twice, a null
// or non-scalar value as "", labels and annotations with scalar values.
func v3Fields(n *yaml.Node) fields {
	var f fields
	if n.Kind != yaml.MappingNode {
		return f
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if seen[k] {
			continue
		}
		seen[k] = true
		switch k {
		case "apiVersion":
			f.APIVersion = value(v)
		case "kind":
			f.Kind = value(v)
		case "metadata":
			v3Metadata(v, &f)
		}
	}
	return f
}

func v3Metadata(md *yaml.Node, f *fields) {
	if md.Kind != yaml.MappingNode {
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(md.Content); i += 2 {
		k, v := md.Content[i].Value, md.Content[i+1]
		if seen[k] {
			continue
		}
		seen[k] = true
		switch k {
		case "name":
			f.Name = value(v)
		case "namespace":
			f.Namespace = value(v)
		case "labels":
			f.Labels = stringMap(v)
		case "annotations":
			f.Annotations = stringMap(v)
		}
	}
}

func value(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.Tag == yaml.NodeTagNull {
		return ""
	}
	return n.Value
}

func stringMap(n *yaml.Node) map[string]string {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	m := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if _, ok := m[n.Content[i].Value]; !ok && n.Content[i+1].Kind == yaml.ScalarNode {
			m[n.Content[i].Value] = n.Content[i+1].Value
		}
	}
	return m
}

// sameNodes reports the first difference between two trees, every field
// of every node compared (lines, columns and comments included), or "".
func sameNodes(a, b *yaml.Node, path string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return path + ": one is nil"
		}
		return ""
	case a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor:
		return fmt.Sprintf("%s: %v %v %q %q %q vs %v %v %q %q %q", path, a.Kind, a.Style, a.Tag, a.Value, a.Anchor, b.Kind, b.Style, b.Tag, b.Value, b.Anchor)
	case a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment:
		return fmt.Sprintf("%s (%q): comments %q %q %q vs %q %q %q", path, a.Value, a.HeadComment, a.LineComment, a.FootComment, b.HeadComment, b.LineComment, b.FootComment)
	case a.Line != b.Line || a.Column != b.Column:
		return fmt.Sprintf("%s (%q): at %d:%d vs %d:%d", path, a.Value, a.Line, a.Column, b.Line, b.Column)
	case len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: %d vs %d children", path, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := sameNodes(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}
