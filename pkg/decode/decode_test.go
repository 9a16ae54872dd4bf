package decode_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/decode"
)

type inner struct {
	Name  string  `yaml:"name"`
	Group *string `yaml:"group,omitempty"`
}

type meta struct {
	Name string `yaml:"name"`
}

type sample struct {
	Meta     meta              `yaml:",inline"`
	Data     map[string]string `yaml:"data"`
	Keys     []string          `yaml:"keys"`
	Create   bool              `yaml:"create"`
	Count    int               `yaml:"count"`
	Ratio    float64           `yaml:"ratio"`
	Items    []inner           `yaml:"items"`
	Revision decode.AnyScalar  `yaml:"revision"`
	Raw      *yaml.Node        `yaml:"raw"`
	Free     any               `yaml:"free"`
}

func parse(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

func TestInto(t *testing.T) {
	t.Parallel()
	group := "apps"
	tests := []struct {
		name        string
		in          string
		opts        decode.Options
		want        sample
		wantErrs    []decode.Error
		unknown     bool
		wantUnknown []decode.Error
	}{{
		name: "every kind of field",
		in: `name: x
data: {a: "1", b: plain}
keys: [k1, k2]
create: true
count: 0x10
ratio: 2
items: [{name: i, group: apps}]
revision: 3
free: {a: [1, 2]}`,
		want: sample{
			Meta: meta{Name: "x"}, Data: map[string]string{"a": "1", "b": "plain"}, Keys: []string{"k1", "k2"},
			Create: true, Count: 16, Ratio: 2, Items: []inner{{Name: "i", Group: &group}}, Revision: "3",
			Free: map[string]any{"a": []any{1, 2}},
		},
	}, {
		name: "nulls leave zero values",
		in:   "name: ~\ndata: null\nkeys:\ncreate: null",
		want: sample{},
	}, {
		name: "wrong types are all reported, with paths",
		in: `name: 3
data: {a: 1, b: true, c: {d: e}, e: ok}
keys: notalist
create: "true"
count: 1.5
items: [{name: [x]}]
revision: {a: b}`,
		want: sample{Data: map[string]string{"a": "", "b": "", "c": "", "e": "ok"}, Items: []inner{{}}},
		wantErrs: []decode.Error{
			{Path: "name", Msg: `must be a string, not the integer 3 (quote it: "3")`},
			{Path: "data.a", Msg: `must be a string, not the integer 1 (quote it: "1")`},
			{Path: "data.b", Msg: `must be a string, not the boolean true (quote it: "true")`},
			{Path: "data.c", Msg: "must be a string, not a mapping"},
			{Path: "keys", Msg: "must be a list, not \"notalist\""},
			{Path: "create", Msg: `must be a boolean (true or false), not "true"`},
			{Path: "count", Msg: "must be an integer, not the number 1.5"},
			{Path: "items[0].name", Msg: "must be a string, not a list"},
			{Path: "revision", Msg: "must be a scalar, not a mapping"},
		},
	}, {
		name: "unknown fields are errors with a hint when asked",
		in:   "name: x\nkyes: [a]\nwhatever: 1",
		opts: decode.Options{KnownFields: true},
		want: sample{Meta: meta{Name: "x"}},
		wantErrs: []decode.Error{
			{Path: "kyes", Msg: `unknown field "kyes" (did you mean "keys"?)`},
			{Path: "whatever", Msg: `unknown field "whatever"`},
		},
	}, {
		name: "unknown fields are ignored otherwise",
		in:   "name: x\nstatus: {a: b}",
		want: sample{Meta: meta{Name: "x"}},
	}, {
		name:    "unknown fields are collected apart when asked",
		in:      "name: x\nkyes: [a]\nitems: [{name: i, grop: g}]",
		unknown: true,
		want:    sample{Meta: meta{Name: "x"}, Items: []inner{{Name: "i"}}},
		wantUnknown: []decode.Error{
			{Path: "kyes", Msg: `unknown field "kyes" (did you mean "keys"?)`},
			{Path: "items[0].grop", Msg: `unknown field "grop" (did you mean "group"?)`},
		},
	}, {
		name: "duplicate keys",
		in:   "name: x\nname: y\ndata: {a: b, a: c}\nraw: {k: 1, k: 2}\nfree: [{z: 1}, {y: 2,\n  y: 3}]",
		want: sample{Meta: meta{Name: "x"}, Data: map[string]string{"a": "b"}},
		wantErrs: []decode.Error{
			{Path: "name", Msg: `line 2: mapping key "name" already defined at line 1`},
			{Path: "data.a", Msg: `line 3: mapping key "a" already defined at line 3`},
			{Path: "raw.k", Msg: `line 4: mapping key "k" already defined at line 4`},
			{Path: "free[1].y", Msg: `line 6: mapping key "y" already defined at line 5`},
		},
	}, {
		name:     "aliases are followed",
		in:       "keys: &k [a]\nitems: [{name: *k}]\ndata: {x: &v s, y: *v}",
		want:     sample{Keys: []string{"a"}, Data: map[string]string{"x": "s", "y": "s"}, Items: []inner{{}}},
		wantErrs: []decode.Error{{Path: "items[0].name", Msg: "must be a string, not a list"}},
	}, {
		name:     "not a mapping",
		in:       "[a]",
		wantErrs: []decode.Error{{Path: "", Msg: "must be a mapping, not a list"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got sample
			var unknown []decode.Error
			if tc.unknown {
				tc.opts.Unknown = &unknown
			}
			errs := decode.Into(parse(t, tc.in), &got, tc.opts, "")
			if diff := cmp.Diff(tc.wantUnknown, unknown); diff != "" {
				t.Errorf("unknown fields (-want +got):\n%s", diff)
			}
			got.Raw = nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("value mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantErrs, errs); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRawNodeIsACopy(t *testing.T) {
	t.Parallel()
	n := parse(t, "raw: {image: a, configMap: {k: v}} # keep")
	var got sample
	if errs := decode.Into(n, &got, decode.Options{}, ""); errs != nil {
		t.Fatal(errs)
	}
	got.Raw.Content[1].Value = "changed"
	out, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	if want := "raw: {image: a, configMap: {k: v}} # keep\n"; string(out) != want {
		t.Errorf("input changed through the decoded copy: %q", out)
	}
}

func TestInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value any
		want  string
	}{
		{map[string]string{"name": "test", "a": "b"}, `spec.data: Invalid value: {"a":"b","name":"test"}: must not contain the key "name"`},
		{[]string{"name"}, `spec.data: Invalid value: ["name"]: must not contain the key "name"`},
		{"x", `spec.data: Invalid value: "x": must not contain the key "name"`},
	}
	for _, tc := range tests {
		if got := decode.Invalid("spec.data", tc.value, `must not contain the key "name"`).Error(); got != tc.want {
			t.Errorf("Invalid(%v) = %q, want %q", tc.value, got, tc.want)
		}
	}
}

func FuzzInto(f *testing.F) {
	for _, s := range []string{"name: x\ndata: {a: b}", "items: [{name: a}]", "keys: &a [*a]", "count: 1e9999", "{? [a]: b}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(s), &n) != nil {
			return
		}
		var v sample
		for _, e := range decode.Into(&n, &v, decode.Options{KnownFields: true}, "root") {
			if e.Msg == "" {
				t.Fatalf("empty error message for %q", s)
			}
		}
	})
}
