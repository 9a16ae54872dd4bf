package decode_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

func TestDuplicates(t *testing.T) {
	t.Parallel()
	wide := func(extra string) string {
		var b strings.Builder
		for i := range 20 {
			fmt.Fprintf(&b, "k%d: %d\n", i, i)
		}
		return b.String() + extra
	}
	tests := []struct {
		name string
		in   string
		base string
		want []decode.Duplicate
	}{{
		name: "none",
		in:   "a: 1\nb: {a: 1}\nc: [{a: 1}, {a: 2}]\n",
	}, {
		name: "a key of a nested mapping, twice",
		in:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n",
		want: []decode.Duplicate{{Path: "metadata.name", Key: "name", Line: 5, First: 4}},
	}, {
		name: "three times: each repetition against the first, by line",
		in:   "items:\n- {x: 1, x: 2}\n- y: 1\n  y: 2\n  y: 3\nz: 1\nz: 2\n",
		want: []decode.Duplicate{
			{Path: "items[0].x", Key: "x", Line: 2, First: 2},
			{Path: "items[1].y", Key: "y", Line: 4, First: 3},
			{Path: "items[1].y", Key: "y", Line: 5, First: 3},
			{Path: "z", Key: "z", Line: 7, First: 6},
		},
	}, {
		name: "quoting does not make another key; nor does a tag",
		in:   "a: 1\n'a': 2\n\"a\": 3\n!!str a: 4\n\"1\": x\n1: y\n",
		want: []decode.Duplicate{
			{Path: "a", Key: "a", Line: 2, First: 1},
			{Path: "a", Key: "a", Line: 3, First: 1},
			{Path: "a", Key: "a", Line: 4, First: 1},
			{Path: "1", Key: "1", Line: 6, First: 5},
		},
	}, {
		name: "a mapping of many keys",
		in:   wide("k7: again\nk20: new\nk0: again\n"),
		base: "data",
		want: []decode.Duplicate{
			{Path: "data.k7", Key: "k7", Line: 21, First: 8},
			{Path: "data.k0", Key: "k0", Line: 23, First: 1},
		},
	}, {
		name: "a mapping behind an alias is checked where it is written",
		in:   "a: &m {x: 1, x: 2}\nb: *m\nc: *m\n",
		want: []decode.Duplicate{{Path: "a.x", Key: "x", Line: 1, First: 1}},
	}, {
		name: "aliases as keys compare by their anchor, complex keys not at all",
		in:   "a: &k v\n*k : 1\n*k : 2\n? [x]\n: 1\n? [y]\n: 2\n",
		want: []decode.Duplicate{{Path: "k", Key: "k", Line: 3, First: 2}},
	}, {
		name: "an empty key is a key",
		in:   "a:\n  \"\": {x: 1}\n  '': 2\n",
		want: []decode.Duplicate{{Path: "a.", Key: "", Line: 3, First: 2}},
	}, {
		name: "a list of documents' roots",
		in:   "- a: 1\n  a: 2\n",
		want: []decode.Duplicate{{Path: "[0].a", Key: "a", Line: 2, First: 1}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := decode.Duplicates(parse(t, tc.in), tc.base)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Duplicates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDuplicateError(t *testing.T) {
	t.Parallel()
	got := decode.Duplicate{Path: "metadata.name", Key: "name", Line: 5, First: 3}.Error()
	if want := `line 5: mapping key "name" already defined at line 3`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// yamlDuplicate is yaml.v3's message for a key written twice.
var yamlDuplicate = regexp.MustCompile(`line (\d+): mapping key ("(?:[^"\\]|\\.)*") already defined at line \d+`)

// FuzzDuplicates holds Duplicates to yaml.v3's decoding into a Go value:
// both find a duplicate or neither does, and every key yaml.v3 names (at
// its line) is one Duplicates names. (yaml.v3 stops at a mapping with a
// duplicate, and compares every pair: Duplicates finds more, each
// against the first.)
func FuzzDuplicates(f *testing.F) {
	for _, s := range []string{"a: 1\na: 2", "a: {b: 1, b: 2}\nc: [{d: 1, 'd': 2}]", "a: &x {b: 1}\nc: *x\n<<: *x\n<<: *x", "? [a]\n: 1\n? [b]\n: 2", "*a : 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(s), &n) != nil {
			return
		}
		got := decode.Duplicates(&n, "")
		mine := map[string]bool{}
		for _, d := range got {
			if d.Line < d.First || d.Path == "" && d.Key != "" {
				t.Fatalf("%+v: the repetition is not after the first, or has no path\ninput:\n%s", d, s)
			}
			mine[fmt.Sprintf("%d %q", d.Line, d.Key)] = true
		}
		if strings.Count(s, "*") > 20 {
			return // alias expansion: yaml.v3 may take long to decode it
		}
		var v any
		err := yaml.Unmarshal([]byte(s), &v)
		var te *yaml.TypeError
		if err != nil && !errors.As(err, &te) {
			return // yaml.v3 stopped short
		}
		theirs := yamlDuplicate.FindAllStringSubmatch(fmt.Sprint(err), -1)
		for _, m := range theirs {
			if m[2] == `""` {
				return // complex keys, which yaml.v3 takes for the same
			}
			if !mine[m[1]+" "+m[2]] {
				t.Fatalf("yaml.v3 says %q, Duplicates %v\ninput:\n%s", m[0], got, s)
			}
		}
		if (len(theirs) == 0) != (len(got) == 0) {
			t.Fatalf("yaml.v3: %v; Duplicates: %v\ninput:\n%s", err, got, s)
		}
	})
}

// BenchmarkDuplicates walks a list of 2,000 Deployments as kpt passes them
// (krmtest.Package): the check's cost on a whole parse.
func BenchmarkDuplicates(b *testing.B) {
	var n yaml.Node
	if err := yaml.Unmarshal(krmtest.Package(2000, ""), &n); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := decode.Duplicates(&n, ""); len(d) > 0 {
			b.Fatal(d)
		}
	}
}
