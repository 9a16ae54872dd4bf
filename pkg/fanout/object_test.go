package fanout

import (
	"fmt"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// An object answers every expression as objectInput's map does: the same
// value, or the same error.
func TestObjectAsMap(t *testing.T) {
	t.Parallel()
	edge := resourcelist.Header{
		Name:        "edge-1",
		Labels:      map[string]string{"region": "us-east1", "tier": "t1"},
		Annotations: map[string]string{"owner": "team-a", kptfile.AnnotationPath: "r.yaml"},
	}
	bare := resourcelist.Header{Name: "bare", Namespace: "ns"}
	env, err := cel.NewEnv(cel.Variable("a", cel.DynType), cel.Variable("b", cel.DynType), ext.Strings())
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{
		"a.name", "a.namespace", "b.namespace", "a.labels['region']", "a.labels['missing']", "a.annotations['owner']",
		"a.annotations", "b.labels", "a.annotations.size()", "a.missing", "has(a.name)", "has(a.missing)",
		"has(a.labels.region)", "a['name']", "a[1]", "'labels' in a", "'x' in a", "a.size()", "size(b)",
		"a == b", "a == a", "a != b", "a.all(k, k != '')", "a.exists(k, k == 'name')", "a.map(k, k).size()",
		"type(a) == map", "type(a)", "string(a)", "dyn(a).name", "[a][0].labels.tier", "{'x': a}.x.name",
		"'%s'.format([a.labels])", "'%s'.format([b])", "a.name.upperAscii() + '-' + b.name", "a.name + a.labels",
		"int(a)", "a.labels == {'region': 'us-east1', 'tier': 't1'}", "a == {'name': 'edge-1'}", "b.annotations == {}",
		"'owner' in a.annotations", "'config.kubernetes.io/path' in a.annotations", "a.annotations['config.kubernetes.io/path']",
		"has(a.annotations.owner)", "a.annotations.all(k, k == 'owner')", "a.annotations == {'owner': 'team-a'}",
		"{'owner': 'team-a'} == a.annotations", "a.annotations[1]", "string(a.annotations)", "b.annotations.size()",
		"a.filter(k, k.startsWith('n')).size()", "[a, b].map(o, o.name).join(',')",
	} {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", expr, iss.Err())
		}
		prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		eval := func(a, b any) string {
			v, _, err := prg.Eval(map[string]any{"a": a, "b": b})
			if err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprintf("%s (%s)", types.Format(v), v.Type().TypeName())
		}
		want := eval(objectInput(edge), objectInput(bare))
		if got := eval(newObject(edge), newObject(bare)); got != want {
			t.Errorf("%s: %s, want %s", expr, got, want)
		}
		if got := eval(newObject(edge), objectInput(bare)); got != want {
			t.Errorf("%s with one object: %s, want %s", expr, got, want)
		}
	}
}
