package celexpr_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/celexpr"
)

func newEnv(t testing.TB) *celexpr.Env {
	t.Helper()
	env, err := celexpr.NewEnv(celexpr.DefaultCostLimit,
		celexpr.Var{Name: "name", Type: celexpr.String},
		celexpr.Var{Name: "object", Type: celexpr.Dyn},
	)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func vars() celexpr.Vars {
	a := types.DefaultTypeAdapter
	return celexpr.Vars{
		"name": "Edge-01",
		"object": types.NewStringInterfaceMap(a, map[string]any{
			"labels": types.NewStringStringMap(a, map[string]string{"region": "us-east1"}),
			"count":  3,
		}),
	}
}

func TestEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr    string
		want    string
		wantErr string
	}{
		{expr: "name", want: "Edge-01"},
		{expr: "name.lowerAscii()", want: "edge-01"},
		{expr: "name.replace('-', '_')", want: "Edge_01"},
		{expr: "name.split('-')[1]", want: "01"},
		{expr: "'%s/%s'.format([name, object.labels['region']])", want: "Edge-01/us-east1"},
		{expr: "object.labels['region'] + '-endpoints'", want: "us-east1-endpoints"},
		{expr: "object.labels['zone']", wantErr: "no such key: zone"},
		{expr: "object.count", wantErr: "expression returned non-string value: 3 (int)"},
		{expr: "size(name)", wantErr: "expression returns int, not a string"},
		{expr: "name +", wantErr: "1:7: Syntax error: mismatched input '<EOF>'"},
		{expr: "cluster", wantErr: "1:1: undeclared reference to 'cluster'"},
		{expr: "  ", wantErr: "empty expression"},
		{
			expr: "string(size([1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c," +
				" [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, a))))))))",
			wantErr: "evaluation exceeded the cost limit of 1000000",
		},
	}
	// The same results whether the values' sizes are known (programs that
	// provably stay within the limit do not count their cost) or not.
	for _, bound := range []uint64{0, varsBound} {
		env := newEnv(t)
		env.Bound(bound)
		for _, tt := range tests {
			got, err := eval(env, tt.expr)
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("bound %d: %s: error %v, want one containing %q", bound, tt.expr, err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Errorf("bound %d: %s: %v", bound, tt.expr, err)
			case got != tt.want:
				t.Errorf("bound %d: %s = %q, want %q", bound, tt.expr, got, tt.want)
			}
		}
	}
}

// varsBound is the size of the largest value in vars: "us-east1".
const varsBound = 8

// Which programs count their cost: none proven without a bound; with one,
// those whose worst case over values that large is well within the limit.
func TestCounted(t *testing.T) {
	t.Parallel()
	nested := "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, string(a + b + c))))[0][0][0]"
	tests := []struct {
		expr  string
		bound uint64
		want  bool
	}{
		{"name", 0, true},
		{"name", varsBound, false},
		{"object.labels['region'] + '-endpoints'", varsBound, false},
		{"'%s/%s'.format([name, object.labels['region']])", varsBound, false},
		{"name.upperAscii()", varsBound, false},
		{"name.upperAscii()", 1 << 40, true}, // a string that long could cost anything
		{"object.labels.map(k, object.labels.map(v, k + v)).size() > 0 ? 'y' : 'n'", varsBound, false},
		{"object.labels.map(k, object.labels.map(v, k + v)).size() > 0 ? 'y' : 'n'", 1 << 20, true},
		{nested, varsBound, false},                                                                        // 1,000 small steps, whatever the values
		{"name.split('-').map(x, name.split('-').map(y, x + y)).size() > 0 ? 'y' : 'n'", varsBound, true}, // split's size is not derived
	}
	for _, tt := range tests {
		env := newEnv(t)
		env.Bound(tt.bound)
		p, err := env.Compile(tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		if got := p.Counted(); got != tt.want {
			t.Errorf("bound %d: %s: Counted() = %v, want %v", tt.bound, tt.expr, got, tt.want)
		}
	}
}

// Bound applies to the programs compiled before it too, and can be withdrawn.
func TestBoundLater(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	p, err := env.Compile("name + '-x'")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bound uint64
		want  bool
	}{{0, true}, {varsBound, false}, {0, true}} {
		if env.Bound(c.bound); p.Counted() != c.want {
			t.Errorf("after Bound(%d): Counted() = %v, want %v", c.bound, p.Counted(), c.want)
		}
	}
}

func eval(env *celexpr.Env, expr string) (string, error) {
	p, err := env.Compile(expr)
	if err != nil {
		return "", err
	}
	return p.Eval(vars())
}

func TestCompileOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	first, err := env.Compile("name + '-x'")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, _ := env.Compile("name + '-x'")
		if again != first {
			t.Fatal("the same expression was compiled again")
		}
	}
	if _, err := env.Compile("name +"); err == nil {
		t.Fatal("a syntax error compiled")
	}
	_, err1 := env.Compile("name +")
	_, err2 := env.Compile("name +")
	if diff := cmp.Diff(err1.Error(), err2.Error()); diff != "" {
		t.Errorf("a failed compilation is remembered too (-first +second):\n%s", diff)
	}
	if got := env.Len(); got != 2 {
		t.Errorf("Len() = %d, want 2 distinct expressions", got)
	}
}

func ExampleEnv_Compile() {
	env, _ := celexpr.NewEnv(celexpr.DefaultCostLimit, celexpr.Var{Name: "region", Type: celexpr.String})
	p, _ := env.Compile("region.upperAscii() + '-endpoints'")
	s, err := p.Eval(celexpr.Vars{"region": "eu-west1"})
	fmt.Println(s, err)
	// Output: EU-WEST1-endpoints <nil>
}

// FuzzExpression compiles and runs whatever it is given: a string or a
// clean error, never a panic, and never more than the cost limit's work.
func FuzzExpression(f *testing.F) {
	for _, s := range []string{
		"name", "name.lowerAscii()", "object.labels['region'] + '-x'", "'%s'.format([name])",
		"[1,2].map(x, [3,4].map(y, x + y))", "name.split('-').join('/')", "object.count", "}{",
		"name.matches('^(a+)+$') ? 'y' : 'n'", "string(object)",
	} {
		f.Add(s)
	}
	env := newEnv(f)
	env.Bound(varsBound)
	f.Fuzz(func(t *testing.T, expr string) {
		p, err := env.Compile(expr)
		if err != nil {
			return
		}
		_, _ = p.Eval(vars())
		// A program that runs without counting its cost was proven within
		// the limit: counting it says so too.
		if !p.Counted() {
			if cost := celexpr.CountedCost(p, vars()); cost > celexpr.DefaultCostLimit {
				t.Errorf("%s runs uncounted but costs %d", expr, cost)
			}
		}
	})
}
