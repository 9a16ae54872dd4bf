package resourcelist_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

const rlHead = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"

// A key written twice in one mapping, anywhere in the list, refuses the
// whole list, read lazily or whole, with a result for each naming the
// item, its file and the field.
func TestDuplicateKeys(t *testing.T) {
	t.Parallel()
	ref := &result.ResourceRef{APIVersion: "v1", Kind: "ConfigMap", Name: "a"}
	file := &result.File{Path: "cm.yaml"}
	item := "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      config.kubernetes.io/path: cm.yaml\n"
	wide := func(extra string) string {
		var b strings.Builder
		for i := range 12 {
			fmt.Fprintf(&b, "    k%d: v\n", i)
		}
		return b.String() + extra
	}
	tests := []struct {
		name string
		in   string
		want result.List
	}{{
		name: "the name of an item, as apply-stack met it",
		in:   rlHead + "items:\n" + item + "    name: b\n",
		want: result.List{{Severity: result.SeverityError, ResourceRef: ref, File: file, Field: &result.Field{Path: "metadata.name"},
			Message: `cm.yaml: ConfigMap/a: line 10: mapping key "name" already defined at line 7 (lines of the input ResourceList)`}},
	}, {
		name: "quoted, in a flow mapping, among many keys, a label: all at once",
		in:   rlHead + "items:\n" + item + "    labels: {app: x, 'app': y}\n  data:\n    k: 1\n    \"k\": 2\n  spec: {a: {b: 1, b: 2}}\n  wide:\n" + wide("    k3: again\n"),
		want: result.List{
			{Severity: result.SeverityError, ResourceRef: ref, File: file, Field: &result.Field{Path: "data.k"},
				Message: `cm.yaml: ConfigMap/a: line 13: mapping key "k" already defined at line 12 (lines of the input ResourceList)`},
			{Severity: result.SeverityError, ResourceRef: ref, File: file, Field: &result.Field{Path: "metadata.labels.app"},
				Message: `cm.yaml: ConfigMap/a: line 10: mapping key "app" already defined at line 10 (lines of the input ResourceList)`},
			{Severity: result.SeverityError, ResourceRef: ref, File: file, Field: &result.Field{Path: "spec.a.b"},
				Message: `cm.yaml: ConfigMap/a: line 14: mapping key "b" already defined at line 14 (lines of the input ResourceList)`},
			{Severity: result.SeverityError, ResourceRef: ref, File: file, Field: &result.Field{Path: "wide.k3"},
				Message: `cm.yaml: ConfigMap/a: line 28: mapping key "k3" already defined at line 19 (lines of the input ResourceList)`},
		},
	}, {
		name: "escaped keys, as their values",
		in:   rlHead + "items:\n" + item + "  data:\n    'it''s': 1\n    \"it's\": 2\n    \"a\\tb\": 3\n    \"a\tb\": 4\n",
		want: result.List{
			{Severity: result.SeverityError, ResourceRef: ref, File: file, Field: &result.Field{Path: "data.a\tb"},
				Message: `cm.yaml: ConfigMap/a: line 14: mapping key "a\tb" already defined at line 13 (lines of the input ResourceList)`},
			{Severity: result.SeverityError, ResourceRef: ref, File: file, Field: &result.Field{Path: "data.it's"},
				Message: `cm.yaml: ConfigMap/a: line 12: mapping key "it's" already defined at line 11 (lines of the input ResourceList)`},
		},
	}, {
		name: "the list's own keys, as set-package-context echoed them",
		in:   rlHead + "items:\n" + item + "items:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
		want: result.List{{Severity: result.SeverityError, Message: `ResourceList: line 10: mapping key "items" already defined at line 3`}},
	}, {
		name: "the functionConfig and the results",
		in: rlHead + "items:\n" + item + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n  data:\n    x: 1\n    x: 2\n" +
			"results:\n- message: m\n  message: n\n",
		want: result.List{
			{Severity: result.SeverityError, Field: &result.Field{Path: "results[0].message"}, Message: `ResourceList: line 19: mapping key "message" already defined at line 18`},
			{Severity: result.SeverityError, ResourceRef: &result.ResourceRef{APIVersion: "v1", Kind: "ConfigMap", Name: "fc"}, Field: &result.Field{Path: "data.x"},
				Message: `functionConfig ConfigMap/fc: line 16: mapping key "x" already defined at line 15 (lines of the input ResourceList)`},
		},
	}, {
		name: "an item without a path or a name",
		in:   rlHead + "items:\n- kind: A\n  kind: B\n",
		want: result.List{{Severity: result.SeverityError, ResourceRef: &result.ResourceRef{Kind: "A"}, Field: &result.Field{Path: "kind"},
			Message: `A at position 0: line 5: mapping key "kind" already defined at line 4 (lines of the input ResourceList)`}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for name, parse := range map[string]func([]byte) (*resourcelist.ResourceList, error){"lazy": resourcelist.Parse, "whole": resourcelist.ParseFull} {
				_, err := parse([]byte(tc.in))
				var dup *resourcelist.DuplicateKeysError
				if !errors.As(err, &dup) {
					t.Fatalf("%s: got %v, want duplicate keys", name, err)
				}
				if diff := cmp.Diff(tc.want, dup.Results); diff != "" {
					t.Errorf("%s: results (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

// The scan reads every entry of a list without duplicates itself, however
// many keys its mappings have: the check costs no fallback to yaml.v3.
func TestDuplicateKeysScanned(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(rlHead + "items:\n")
	for i := range 3 {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a%d\n    labels: {a: b, c: d}\n  data:\n", i)
		for k := range 50 {
			fmt.Fprintf(&b, "    k%d: {x%d: v, y%d: w}\n", k, i, i)
		}
		fmt.Fprintf(&b, "  \"data\\t\": x\n  'kind ': y\n")
	}
	rl, err := resourcelist.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n, of := rl.Scanned(); n != of || !rl.Lazy() {
		t.Errorf("the scan read %d of %d items (lazily: %v)", n, of, rl.Lazy())
	}
}

// yamlDuplicate is yaml.v3's message for a key written twice.
var yamlDuplicate = regexp.MustCompile(`line \d+: mapping key ("(?:[^"\\]|\\.)*") already defined at line \d+`)

// checkDuplicates holds the whole parse's refusal of duplicate keys to
// yaml.v3's decoding into a Go value: a list read has none, a list refused
// for them has one.
func checkDuplicates(t *testing.T, in []byte, errFull error) {
	t.Helper()
	var dup *resourcelist.DuplicateKeysError
	if errFull != nil && !errors.As(errFull, &dup) {
		return
	}
	var v any
	err := yaml.Unmarshal(in, &v)
	var te *yaml.TypeError
	if err != nil && !errors.As(err, &te) {
		return // yaml.v3 stopped short
	}
	theirs := yamlDuplicate.FindAllStringSubmatch(fmt.Sprint(err), -1)
	for _, m := range theirs {
		if m[1] == `""` {
			return // complex keys, which yaml.v3 takes for the same
		}
	}
	if (dup != nil) != (len(theirs) > 0) {
		t.Fatalf("the whole parse: %v; yaml.v3: %v\ninput:\n%s", errFull, err, in)
	}
}

// A header reads the first of a key written twice, as kyaml does: the
// results about such an item name it as kpt would.
func TestHeaderFirstKey(t *testing.T) {
	t.Parallel()
	n := yaml.MustParse("apiVersion: v1\nkind: A\nkind: B\nmetadata:\n  name: a\n  name: b\n  labels: {x: '1', y: '2', x: '3'}\nmetadata: {namespace: ns}\n")
	want := resourcelist.Header{APIVersion: "v1", Kind: "A", Name: "a", Labels: map[string]string{"x": "1", "y": "2"}, Position: -1}
	if diff := cmp.Diff(want, resourcelist.HeaderOf(n)); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
}
