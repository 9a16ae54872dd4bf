package fanout

import (
	"testing"

	"github.com/google/cel-go/common/types/ref"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/celexpr"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

func node(t *testing.T, s string) *yaml.Node {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n.YNode()
}

func TestEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"{a: 1, b: [x, y]}", "b:\n- x\n- y\na: 1 # one", true},
		{"{a: 1}", "{a: '1'}", false},
		{"{a: [x, y]}", "{a: [y, x]}", false},
		{"{a: 1}", "{a: 1, b: 2}", false},
		{"x: &v {k: v}\ny: *v", "x: {k: v}\ny: {k: v}", true},
		{"a: null", "a: ~", true},
	}
	for _, tt := range tests {
		if got := equal(node(t, tt.a), node(t, tt.b)); got != tt.want {
			t.Errorf("equal(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPlain(t *testing.T) {
	t.Parallel()
	in := node(t, "# head\nimage: x # line\nconfigMap: &m {a: 'b'}\nselectors: [{labels: *m}]\n")
	got, err := plain(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "image: x\nconfigMap:\n  a: 'b'\nselectors:\n- labels:\n    a: 'b'\n"
	if diff := cmp.Diff(want, yaml.NewRNode(got).MustString()); diff != "" {
		t.Errorf("plain (-want +got):\n%s", diff)
	}
	bomb := node(t, "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"+
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n")
	if _, err := plain(bomb); err != errTooBig {
		t.Errorf("plain of an alias bomb: error %v, want %v", err, errTooBig)
	}
}

// TestCompileOnce proves that an expression is compiled once per run,
// however many templates and targets use it.
func TestCompileOnce(t *testing.T) {
	t.Parallel()
	var pvs porch.PackageVariantSet
	errs := decode.Into(node(t, `
spec:
  targets:
  - template:
      labelExprs:
      - {key: region, valueExpr: "repository.labels['region']"}
      - {key: name, valueExpr: "repository.name"}
      injectors:
      - nameExpr: "repository.labels['region']"
  - template:
      labelExprs:
      - {key: region, valueExpr: "repository.labels['region']"}
      downstream:
        repoExpr: "repoDefault"
`), &pvs, decode.Options{}, "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	c, err := newCompiler(celexpr.DefaultCostLimit)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 { // as if for 100 runs over the same compiler
		for _, tg := range pvs.Spec.Targets {
			if c.template(tg.Template, "spec.targets[0].template") == nil {
				t.Fatalf("compile errors: %v", c.errs)
			}
		}
	}
	if got, want := c.withRepo.Len(), 2; got != want {
		t.Errorf("compiled %d expressions with the repository, want %d", got, want)
	}
	if got, want := c.withoutRepo.Len(), 1; got != want {
		t.Errorf("compiled %d expressions without the repository, want %d", got, want)
	}
}

// TestObjectInput checks what expressions see of an object: its name, its
// namespace ("default" when none), its labels and its annotations without
// those kpt, kustomize and kptkit add while it travels.
func TestObjectInput(t *testing.T) {
	t.Parallel()
	h := resourcelist.Header{
		Name:   "edge-1",
		Labels: map[string]string{"region": "us-east1"},
		Annotations: map[string]string{
			"owner":                 "team-a",
			kptfile.AnnotationPath:  "repositories.yaml",
			kptfile.AnnotationIndex: "0",
			"internal.config.kubernetes.io/seqindent":  "compact",
			"internal.config.kubernetes.io/new-in-kpt": "x",
			v1alpha1.AnnotationInCluster:               "true",
		},
	}
	got := native(t, objectInput(h))
	want := map[string]any{
		"name":        "edge-1",
		"namespace":   "default",
		"labels":      map[string]string{"region": "us-east1"},
		"annotations": map[string]string{"owner": "team-a"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objectInput (-want +got):\n%s", diff)
	}
	got = native(t, objectInput(resourcelist.Header{Name: "bare", Namespace: "ns"}))
	want = map[string]any{"name": "bare", "namespace": "ns", "labels": map[string]string{}, "annotations": map[string]string{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objectInput of an object without labels (-want +got):\n%s", diff)
	}
}

// native turns an object input into Go maps.
func native(t *testing.T, v ref.Val) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, x := range v.Value().(map[string]any) {
		if m, ok := x.(ref.Val); ok {
			x = m.Value()
		}
		out[k] = x
	}
	return out
}

func TestValidateFunctions(t *testing.T) {
	t.Parallel()
	fns := []*yaml.Node{
		node(t, "{name: ok, image: fn:v1}"),
		node(t, "{exec: ./fn}"),
		node(t, "{name: a.b}"),
		node(t, "{image: [x], configMap: {a: {b: c}}}"),
	}
	got := validateFunctions(fns, "spec.targets[0].template.pipeline.mutators")
	want := []decode.Error{
		{Path: "spec.targets[0].template.pipeline.mutators[2].image", Msg: "spec.targets[0].template.pipeline.mutators[2].image must not be empty"},
		{Path: "spec.targets[0].template.pipeline.mutators[2].name", Msg: "spec.targets[0].template.pipeline.mutators[2].name must not contain '.'"},
		{Path: "spec.targets[0].template.pipeline.mutators[3].image", Msg: "spec.targets[0].template.pipeline.mutators[3].image: must be a string, not a list"},
		{Path: "spec.targets[0].template.pipeline.mutators[3].configMap.a", Msg: "spec.targets[0].template.pipeline.mutators[3].configMap.a: must be a string, not a mapping"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("validateFunctions (-want +got):\n%s", diff)
	}
}

func TestVariants(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0 PackageVariants", 1: "1 PackageVariant", 12: "12 PackageVariants"} {
		if got := variants(n); got != want {
			t.Errorf("variants(%d) = %q, want %q", n, got, want)
		}
	}
}

// A rendered map is sorted by key and keeps the last value set for a key,
// as a Go map set entry after entry would.
func TestLastOfEach(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		in, want []pair
	}{
		{"empty", nil, nil},
		{"all gone", []pair{}, nil},
		{"sorted", []pair{{"b", "2"}, {"a", "1"}}, []pair{{"a", "1"}, {"b", "2"}}},
		{"last wins", []pair{{"b", "plain"}, {"a", "1"}, {"b", "expr"}, {"c", "3"}, {"b", "later"}}, []pair{{"a", "1"}, {"b", "later"}, {"c", "3"}}},
	} {
		if diff := cmp.Diff(c.want, lastOfEach(c.in), cmp.AllowUnexported(pair{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCheckPackage: a downstream package is a relative folder path whose
// segments kptpkg.CheckSegments takes (no empty, "." or ".." one, none git
// keeps for its folder), without Porch's spaces, control characters and
// backslashes.
func TestCheckPackage(t *testing.T) {
	t.Parallel()
	const invalid = "is not a valid package name: "
	for pkg, want := range map[string]string{
		"app":         "",
		"sites/edge1": "",
		"":            "downstream package is empty",
		"a b":         `downstream package "a b" ` + invalid + `it holds spaces, control characters or '\'`,
		`a\b`:         `downstream package "a\\b" ` + invalid + `it holds spaces, control characters or '\'`,
		"../escape":   `downstream package "../escape" ` + invalid + `a relative folder path without empty, '.' or '..' parts`,
		"a//b":        `downstream package "a//b" ` + invalid + `a relative folder path without empty, '.' or '..' parts`,
		"a/./b":       `downstream package "a/./b" ` + invalid + `a relative folder path without empty, '.' or '..' parts`,
		".git":        `downstream package ".git" ` + invalid + `".git" is git's own folder`,
		"app/.GIT/x":  `downstream package "app/.GIT/x" ` + invalid + `".GIT" is git's own folder`,
		"git~1":       `downstream package "git~1" ` + invalid + `"git~1" is .git on NTFS by its short name git~1, which drops trailing dots and spaces`,
	} {
		got := ""
		if err := checkPackage(pkg); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("checkPackage(%q) = %q\nwant %q", pkg, got, want)
		}
	}
}
