package pkgfile_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/stack/pkgfile"
	"github.com/kptkit/kptkit/pkg/stack/pkgfile/jsonnet"
)

const labelYAML = `apiVersion: influxdata.com/v2alpha1
kind: Label
metadata:
  name: label-1
spec:
  color: "#eee888"
`

// arrayYAML is array.json as package YAML.
const arrayYAML = labelYAML + "---\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  retentionRules:\n  - type: expire\n    everySeconds: 3600\n  \"on\": \"yes\"\n  \"n\": \"3\"\n"

var files = fstest.MapFS{
	"array.json":  {Data: []byte(`[{"apiVersion": "influxdata.com/v2alpha1", "kind": "Label", "metadata": {"name": "label-1"}, "spec": {"color": "#eee888"}}, {"kind": "Bucket", "metadata": {"name": "b"}, "spec": {"retentionRules": [{"type": "expire", "everySeconds": 3600}], "on": "yes", "n": "3"}}]`)},
	"object.json": {Data: []byte(`{"apiVersion": "influxdata.com/v2alpha1", "kind": "Label", "metadata": {"name": "label-1"}, "spec": {"color": "#eee888"}}`)},
	"noext":       {Data: []byte(" [] ")},
	"multi.yaml":  {Data: []byte(labelYAML + "---\n# an empty document\n---\n- kind: Bucket\n  metadata: {name: b}\n")},
	"lib/influx.libsonnet": {Data: []byte(`{
  label(name, color):: {apiVersion: 'influxdata.com/v2alpha1', kind: 'Label', metadata: {name: name}, spec: {color: color}},
}`)},
	"pkg.jsonnet": {Data: []byte(`local influx = import 'lib/influx.libsonnet';
[influx.label('label-%d' % i, '#eee888') for i in [1, 2]]`)},
	"scalar.yaml":     {Data: []byte("just text\n")},
	"dup.yaml":        {Data: []byte(labelYAML + "---\n- kind: Bucket\n  metadata: {name: b}\n  spec: {a: 1, a: 2}\n")},
	"dup.json":        {Data: []byte("[{\"kind\": \"Label\",\n  \"metadata\": {\"name\": \"l\"},\n  \"kind\": \"Bucket\"}]")},
	"mixed.json":      {Data: []byte(`[{"kind": "Label"}, 3]`)},
	"broken.json":     {Data: []byte(`[{"kind": `)},
	"error.jsonnet":   {Data: []byte(`error 'no package here'`)},
	"escape.jsonnet":  {Data: []byte(`import '../secret.libsonnet'`)},
	"missing.jsonnet": {Data: []byte(`import 'nowhere.libsonnet'`)},
}

func TestConvert(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, want, err string
	}{
		{file: "object.json", want: labelYAML},
		{file: "array.json", want: arrayYAML},
		{file: "noext", want: ""},
		{file: "multi.yaml", want: labelYAML + "---\nkind: Bucket\nmetadata: {name: b}\n"},
		{file: "pkg.jsonnet", want: labelYAML + "---\n" + strings.ReplaceAll(labelYAML, "label-1", "label-2")},
		{file: "scalar.yaml", err: `cannot read scalar.yaml as yaml: document 0 is the scalar "just text": want a resource (a mapping) or a list of them`},
		{file: "mixed.json", err: `cannot read mixed.json as json: document 0: element 1 is the scalar "3", not a resource (a mapping)`},
		{file: "dup.yaml", err: `cannot read dup.yaml as yaml: Bucket/b: line 10: mapping key "a" already defined at line 10`},
		{file: "dup.json", err: `cannot read dup.json as json: Label/l: line 3: mapping key "kind" already defined at line 1`},
		{file: "broken.json", err: "cannot read broken.json as json: yaml: line 1: did not find expected node content"},
		{file: "error.jsonnet", err: "cannot evaluate error.jsonnet: RUNTIME ERROR: no package here"},
		{file: "escape.jsonnet", err: `cannot evaluate escape.jsonnet: RUNTIME ERROR: cannot import "../secret.libsonnet": it is outside the package`},
		{file: "missing.jsonnet", err: `cannot evaluate missing.jsonnet: RUNTIME ERROR: cannot import "nowhere.libsonnet": open nowhere.libsonnet: file does not exist`},
		{file: "absent.yaml", err: "cannot read absent.yaml: no such file or directory"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			got, err := pkgfile.Convert(files, tc.file, "", jsonnet.VM{FS: files})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error = %v, want one starting with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeJSON(t *testing.T) {
	t.Parallel()
	n := yaml.MustParse("kind: Bucket\nmetadata: {name: b}\nspec:\n  n: 0x10\n  s: \"3\"\n  f: 1.50\n  ok: True\n  none: ~\n  inf: .inf\n  list: [a, 2]\n  anchor: &a {x: 1}\n  alias: *a\n")
	got, err := pkgfile.EncodeJSON([]*yaml.RNode{n})
	if err != nil {
		t.Fatal(err)
	}
	want := `[
  {
    "kind": "Bucket",
    "metadata": {
      "name": "b"
    },
    "spec": {
      "n": 16,
      "s": "3",
      "f": 1.5,
      "ok": true,
      "none": null,
      "inf": ".inf",
      "list": [
        "a",
        2
      ],
      "anchor": {
        "x": 1
      },
      "alias": {
        "x": 1
      }
    }
  }
]
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// JSON written by EncodeJSON reads back as the same resources.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	nodes, err := pkgfile.Decode(files, "array.json", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pkgfile.EncodeJSON(nodes)
	if err != nil {
		t.Fatal(err)
	}
	again, err := pkgfile.DecodeBytes(nil, "again.json", b)
	if err != nil {
		t.Fatal(err)
	}
	y1, err := pkgfile.EncodeYAML(nodes)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := pkgfile.EncodeYAML(again)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(arrayYAML, string(y1)); diff != "" {
		t.Errorf("array.json as YAML (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(string(y1), string(y2)); diff != "" {
		t.Errorf("round trip changed the resources (-before +after):\n%s", diff)
	}
}

// TestNoEvaluator: without an evaluator, a Jsonnet file is refused.
func TestNoEvaluator(t *testing.T) {
	t.Parallel()
	_, err := pkgfile.Convert(files, "pkg.jsonnet", "", nil)
	if err == nil || err.Error() != "cannot evaluate pkg.jsonnet: Jsonnet is not evaluated here" {
		t.Errorf("got %v", err)
	}
}

// FuzzDecode: Jsonnet programs, which may run for ever, are refused (no
// evaluator): the rest is read or refused cleanly.
func FuzzDecode(f *testing.F) {
	for name, file := range files {
		f.Add(name, file.Data)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		nodes, err := pkgfile.DecodeBytes(nil, name, data)
		if err != nil {
			return
		}
		for i, n := range nodes {
			if n.YNode().Kind != yaml.MappingNode {
				t.Fatalf("resource %d is not a mapping", i)
			}
		}
		if _, err := pkgfile.EncodeYAML(nodes); err != nil {
			t.Fatalf("cannot encode what was decoded: %v", err)
		}
		_, _ = pkgfile.EncodeJSON(nodes)
	})
}

func ExampleConvert() {
	fsys := fstest.MapFS{"pkg.json": {Data: []byte(`[{"kind": "Label", "metadata": {"name": "label_1"}, "spec": {"name": "yes"}}]`)}}
	out, err := pkgfile.Convert(fsys, "pkg.json", "", nil)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Print(string(out))
	// Output:
	// kind: Label
	// metadata:
	//   name: label_1
	// spec:
	//   name: "yes"
}
