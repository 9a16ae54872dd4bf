package fanout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/celexpr"
	"github.com/kptkit/kptkit/pkg/decode"
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
