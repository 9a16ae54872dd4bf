package stack

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

func TestContent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"kind: A\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/path: a.yaml, team: blue}\nspec:\n  replicas: 0x10\n  on: true\n  ratio: 1.50\n  none: ~\n  when: 2001-12-14\n  text: \"line\\n\\\"quoted\\\" <&> \\u2028\"\n  associations: [{kind: Label, name: l}]\n",
			`{"kind":"A","metadata":{"annotations":{"team":"blue"},"name":"x"},"spec":{"none":null,"on":true,"ratio":1.5,"replicas":16,"text":"line\n\"quoted\" <&> \u2028","when":"2001-12-14"}}`},
		{"kind: A\nx: .inf\ny: 99999999999999999999\nz: [&a 1, *a]\n", `{"kind":"A","x":".inf","y":1e+20,"z":[1,1]}`},
	} {
		n, err := yaml.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		got := string(Content(n.YNode()))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s(-want +got):\n%s", tc.in, diff)
		}
	}
}

// A value that contains itself (found by FuzzContent) is cut at a depth
// JSON readers take.
func TestContentSelfAlias(t *testing.T) {
	t.Parallel()
	n, err := yaml.Parse("a: &x {b: *x}\n")
	if err != nil {
		t.Fatal(err)
	}
	if c := Content(n.YNode()); !json.Valid(c) || strings.Count(string(c), "{") != maxContentDepth+1 {
		t.Errorf("content %.100s... (%d bytes)", c, len(c))
	}
}

func TestApplied(t *testing.T) {
	t.Parallel()
	rs := []v1alpha1.StackResource{{ID: "00000000000000a1"}, {ID: "00000000000000b2"}}
	contents := []string{`{"kind":"A"}`, `{"kind":"B","x":[1,2]}`}
	b, err := encodeApplied(rs, writeEach(func(i int) []byte { return []byte(contents[i]) }))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeApplied(b.String())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{"00000000000000a1": json.RawMessage(contents[0]), "00000000000000b2": json.RawMessage(contents[1])}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if none, err := encodeApplied(nil, nil); err != nil || none.String() != "" {
		t.Errorf("no resources: %q, %v", none.String(), err)
	}
	for _, bad := range []string{"not base64!", "bm90IGRlZmxhdGVk", "8wAA"} {
		if _, err := decodeApplied(bad); err == nil {
			t.Errorf("decodeApplied(%q) is no error", bad)
		}
	}
}

// writeEach writes content(i) for encodeApplied.
func writeEach(content func(i int) []byte) func(int, io.Writer) error {
	return func(i int, w io.Writer) error {
		_, err := w.Write(content(i))
		return err
	}
}

// appliedWhole is encodeApplied as it was: the JSON object made whole,
// then deflated with one Write.
func appliedWhole(t *testing.T, resources []v1alpha1.StackResource, content func(i int) []byte) string {
	t.Helper()
	var raw bytes.Buffer
	raw.WriteByte('{')
	for i, r := range resources {
		if i > 0 {
			raw.WriteByte(',')
		}
		raw.Write(appendJSONString(nil, r.ID))
		raw.WriteByte(':')
		raw.Write(content(i))
	}
	raw.WriteByte('}')
	var z bytes.Buffer
	fw, err := flate.NewWriter(&z, flate.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(raw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(z.Bytes())
}

// sameApplied checks encodeApplied against appliedWhole over n resources
// whose contents are made from seed: repetitive, as a package's are, with
// some noise, one in a thousand larger than encodeApplied's stretches.
func sameApplied(t *testing.T, n int, seed []byte) {
	t.Helper()
	rs := make([]v1alpha1.StackResource, n)
	contents := make([][]byte, n)
	for i := range rs {
		rs[i].ID = fmt.Sprintf("%016x", i*7919)
		c := fmt.Appendf(nil, `{"kind":"ConfigMap","metadata":{"name":"cm-%d"},"data":{"k":%q}}`, i, seed)
		if len(seed) > 0 && i%1000 == 7 {
			c = fmt.Appendf(nil, `{"big":%q}`, bytes.Repeat(seed, 1+(70<<10)/len(seed)))
		}
		contents[i] = c
	}
	content := func(i int) []byte { return contents[i] }
	b, err := encodeApplied(rs, writeEach(content))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), appliedWhole(t, rs, content); got != want {
		t.Fatalf("%d resources: encodeApplied differs from deflating the whole JSON (%d bytes, want %d)", n, len(got), len(want))
	}
}

func TestAppliedAsWhole(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 100, 5000} {
		sameApplied(t, n, []byte("a value with \"quotes\" and \u00e9, \x61 repeated"))
	}
	sameApplied(t, 3000, []byte{0})
}

// FuzzApplied: the streamed encoding is the whole JSON deflated.
func FuzzApplied(f *testing.F) {
	f.Add(uint16(3), []byte("x"))
	f.Add(uint16(2000), []byte("\x00\xff a: b"))
	f.Fuzz(func(t *testing.T, n uint16, seed []byte) {
		sameApplied(t, 1+int(n%3000), seed)
	})
}

// FuzzContent: any resource's content is valid JSON, and two resources
// with one checksum have one content (the content is what the checksum
// covers).
func FuzzContent(f *testing.F) {
	f.Add("kind: A\nmetadata: {name: x}\nspec: {a: 1, b: [true, ~, 1.0]}\n", "kind: A\nspec: {b: [True, null, 1.00], a: 0x1}\nmetadata: {name: x, annotations: {config.kubernetes.io/index: '3'}}\n")
	f.Add("a: &x [1, {b: 2}]\nc: *x\n", "c: [1, {b: 2}]\na: [1, {b: 2}]\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		na, err := yaml.Parse(a)
		if err != nil {
			return
		}
		nb, err := yaml.Parse(b)
		if err != nil {
			return
		}
		ca, cb := Content(na.YNode()), Content(nb.YNode())
		if !json.Valid(ca) {
			t.Fatalf("content of %q is not JSON: %.200s", a, ca)
		}
		if Checksum(na.YNode()) == Checksum(nb.YNode()) && string(ca) != string(cb) {
			t.Fatalf("one checksum, two contents:\n%.500s\n%.500s", ca, cb)
		}
	})
}

// FuzzDecodeApplied: any record's lastApplied decodes or is an error.
func FuzzDecodeApplied(f *testing.F) {
	b, _ := encodeApplied([]v1alpha1.StackResource{{ID: "x"}}, writeEach(func(int) []byte { return []byte(`{"a":1}`) }))
	f.Add(b.String())
	f.Add("")
	f.Add(strings.Repeat("A", 40))
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = decodeApplied(s)
	})
}

// TestContentStreamed: a content streamed a stretch at a time is the
// content made whole, whatever characters the stretches cut; take keeps a
// small content and leaves a big one to be streamed.
func TestContentStreamed(t *testing.T) {
	t.Parallel()
	pattern := "aé€😀\x00\"\\\n\xff\xe2\x82<&>\u2028"
	for _, shift := range []int{0, 1, 2, 3, 5} {
		big := strings.Repeat("x", shift) + strings.Repeat(pattern, bigContent/len(pattern))
		n := yaml.NewMapRNode(nil).YNode()
		n.Content = []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "kind"}, {Kind: yaml.ScalarNode, Value: "ConfigMap"},
			{Kind: yaml.ScalarNode, Value: big}, {Kind: yaml.ScalarNode, Value: big, Tag: "!!str"},
		}
		want := Content(n)
		var got bytes.Buffer
		w := contentWriter{sink: &got}
		if err := w.stream(n); err != nil || got.String() != string(want) {
			t.Fatalf("shift %d: streamed %d bytes (%v), want %d; equal: %v", shift, got.Len(), err, len(want), got.String() == string(want))
		}
		if kept := (&contentWriter{}).take(n); kept != nil {
			t.Errorf("shift %d: a %d-byte content is kept", shift, len(want))
		}
	}
	small, err := yaml.Parse("kind: A\nx: 1\n")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"kind":"A","x":1}`, string((&contentWriter{}).take(small.YNode()))); diff != "" {
		t.Errorf("small content (-want +got):\n%s", diff)
	}
}
