package pkger_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

// objects reads a multi-document package file as pkger objects, each at
// its index in the file.
func objects(t *testing.T, docs string) []pkger.Object {
	t.Helper()
	nodes, err := read(docs)
	if err != nil {
		t.Fatal(err)
	}
	return toObjects(nodes)
}

// toObjects makes pkger objects of the mapping documents, each at its index.
func toObjects(nodes []*yaml.RNode) []pkger.Object {
	var out []pkger.Object
	for i, n := range nodes {
		if n.YNode().Kind != yaml.MappingNode {
			continue
		}
		h := resourcelist.HeaderOf(n)
		out = append(out, pkger.Object{Kind: h.Kind, Name: h.Name, Root: i, Node: n})
	}
	return out
}

// read parses the documents of a YAML stream.
func read(docs string) (out []*yaml.RNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	dec := yaml.NewDecoder(strings.NewReader(docs))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out = append(out, yaml.NewRNode(&n))
	}
}

func validate(t *testing.T, docs string) []string {
	t.Helper()
	var out []string
	for _, e := range pkger.Validate(objects(t, docs)) {
		out = append(out, e.Error())
	}
	return out
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		docs string
		want []string
	}{{
		name: "valid label and bucket",
		docs: "kind: Label\nmetadata: {name: label-1}\n---\nkind: Bucket\nmetadata: {name: rucket-1}\nspec:\n  retentionRules: [{type: expire, everySeconds: 3600}]\n  associations: [{kind: Label, name: label-1}]\n",
	}, {
		name: "short names, counting spec.name first",
		docs: "kind: Label\nmetadata: {name: label-1}\nspec: {name: x}\n---\nkind: Bucket\nmetadata: {name: b}\n---\nkind: Dashboard\nmetadata: {name: d}\nspec: {name: {envRef: {key: dash-name, default: dd}}}\n",
		want: []string{
			`kind=Label field=root[0].spec.name reason="must be a string of at least 2 chars in length"`,
			`kind=Bucket field=root[1].spec.name reason="must be a string of at least 2 chars in length"`,
		},
	}, {
		name: "kinds",
		docs: "kind: Buckets\nmetadata: {name: b1}\n---\nmetadata: {name: b2}\n---\nkind: Check\nmetadata: {name: abstract}\n",
		want: []string{
			`kind=Buckets field=root[0].kind reason="unsupported kind provided"`,
			`kind=unknown field=root[1].kind reason="invalid kind"`,
		},
	}, {
		name: "duplicate names within a kind group",
		docs: "kind: CheckDeadman\nmetadata: {name: c}\nspec: {every: 1m, query: q, statusMessageTemplate: t}\n---\nkind: CheckThreshold\nmetadata: {name: c}\n---\nkind: Variable\nmetadata: {name: v1}\nspec: {name: shared}\n---\nkind: Variable\nmetadata: {name: v2}\nspec: {name: shared}\n",
		want: []string{
			`kind=CheckThreshold field=root[1].metadata.name reason="duplicate name: c"`,
			`kind=Variable field=root[3].spec.name reason="duplicate name: v2"`,
		},
	}, {
		name: "associations",
		docs: "kind: Label\nmetadata: {name: l1}\n---\nkind: Task\nmetadata: {name: t}\nspec:\n  every: 1h\n  query: q\n  association:\n  - {kind: Label, name: l1}\n  - {kind: Label, name: l1}\n  - {kind: Label, name: l2}\n  - {name: l1}\n  - {kind: Bucket, name: elsewhere}\n",
		want: []string{
			`kind=Task field=root[1].spec.association[1] reason="duplicate nested label: \"l1\""`,
			`kind=Task field=root[1].spec.association[2] reason="label \"l2\" does not exist in pkg"`,
			`kind=Task field=root[1].spec.association[3].kind reason="no kind provided"`,
		},
	}, {
		name: "notification rule and its endpoint",
		docs: "kind: NotificationEndpointSlack\nmetadata: {name: slack}\nspec: {url: 'https://hooks.slack.com/x', status: Active}\n---\nkind: NotificationRule\nmetadata: {name: r}\nspec: {endpointName: slack, every: 10m, statusRules: [{currentLevel: ' warn '}], tagRules: [{key: k, value: v, operator: notEqual}]}\n",
	}, {
		name: "task with cron",
		docs: "kind: Task\nmetadata: {name: t}\nspec: {cron: '*/5 * * * *', query: ' ', status: Paused}\n",
		want: []string{
			`kind=Task field=root[0].spec.query reason="must provide a non zero value"`,
			`kind=Task field=root[0].spec.status reason="must be 1 of [active, inactive]"`,
		},
	}, {
		name: "bearer endpoint without token, variable without values",
		docs: "kind: NotificationEndpointHTTP\nmetadata: {name: h}\nspec: {url: 'http://x', method: GET, type: Bearer}\n---\nkind: Variable\nmetadata: {name: v}\nspec: {type: constant, values: []}\n",
		want: []string{
			`kind=NotificationEndpointHTTP field=root[0].spec.token reason="must provide non empty string"`,
			`kind=Variable field=root[1].spec.values reason="constant variable must have a least 1 value provided"`,
		},
	}, {
		name: "charts",
		docs: "kind: Dashboard\nmetadata: {name: dash}\nspec:\n  charts:\n  - {kind: Table, width: 1, height: 1, tableOptions: {wrapping: squeeze}}\n  - {kind: Histogram, width: 1, height: 1}\n  - {kind: single_stat_plus_line, width: 1, height: 1, axes: [{name: x}, {name: y}], position: Stacked}\n",
		want: []string{
			`kind=Dashboard field=root[0].spec.charts[0].tableOptions.wrapping reason="chart table option should 1 in [\"single-line\", \"truncate\", \"wrap\"]"`,
			`kind=Dashboard field=root[0].spec.charts[1].axes reason="axis not found: \"x\""`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, validate(t, tc.docs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// Validate reads whatever it is given without panicking: objects without a
// node, specs of the wrong shape, aliases.
func TestValidateOddShapes(t *testing.T) {
	t.Parallel()
	objs := objects(t, "kind: Bucket\nmetadata: {name: b1}\nspec: [1, 2]\n---\nkind: Dashboard\nmetadata: {name: d1}\nspec: {charts: [3, {kind: 4}]}\n---\nkind: Task\nmetadata: {name: t}\nx: &x {every: 1h}\nspec: *x\n")
	objs = append(objs, pkger.Object{Kind: pkger.KindLabel, Name: "no-node"})
	got := validate(t, "")
	if got != nil {
		t.Fatalf("nothing to validate gave %v", got)
	}
	errs := pkger.Validate(objs)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	want := []string{
		`kind=Dashboard field=root[1].spec.charts[0].kind reason="invalid chart kind provided: 4"`,
		`kind=Task field=root[2].spec.query reason="must provide a non zero value"`,
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"1h", time.Hour, false},
		{"1h30m", 90 * time.Minute, false},
		{"-5m", -5 * time.Minute, false},
		{"10ms", 10 * time.Millisecond, false},
		{"3µs", 3 * time.Microsecond, false},
		{"2w1d", 15 * 24 * time.Hour, false},
		{"1mo", 30 * 24 * time.Hour, false},
		{"0s", 0, false},
		{"", 0, true},
		{"h", 0, true},
		{"1", 0, true},
		{"1fortnight", 0, true},
		{"1.5h", 0, true},
		{"99999999999999999999y", 0, true},
		{"300y", 0, true},
	} {
		got, err := pkger.ParseDuration(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1h", "-5m30s", "1mo2w", "10ms", "3µs", "", "1y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := pkger.ParseDuration(s)
		if err != nil {
			return
		}
		if strings.HasPrefix(s, "-") != (d < 0) && d != 0 {
			t.Errorf("ParseDuration(%q) = %v: the sign is wrong", s, d)
		}
		again, err := pkger.ParseDuration(s)
		if err != nil || again != d {
			t.Errorf("ParseDuration(%q) is not deterministic", s)
		}
	})
}

func FuzzValidate(f *testing.F) {
	f.Add("kind: Bucket\nmetadata: {name: b}\nspec: {retentionRules: [{everySeconds: 1}]}\n")
	f.Add("kind: Dashboard\nmetadata: {name: d}\nspec: {charts: [{kind: xy}]}\n---\nkind: Label\nmetadata: {name: l}\n")
	f.Add("kind: NotificationRule\nmetadata: {name: r}\nspec: {endpointName: {envRef: {key: k}}, statusRules: [{}]}\n")
	f.Fuzz(func(t *testing.T, docs string) {
		nodes, err := read(docs)
		if err != nil {
			return
		}
		objs := toObjects(nodes)
		for _, e := range pkger.Validate(objs) {
			if e.Object < 0 || e.Object >= len(objs) || !strings.HasPrefix(e.Error(), "kind=") {
				t.Fatalf("bad error %+v", e)
			}
		}
	})
}

func ExampleError() {
	node := yaml.MustParse("kind: Bucket\nmetadata: {name: rucket-1}\nspec:\n  retentionRules:\n  - {type: expire, everySeconds: 60}\n")
	for _, e := range pkger.Validate([]pkger.Object{{Kind: "Bucket", Name: "rucket-1", Root: 0, Node: node}}) {
		fmt.Println(e)
	}
	// Output: kind=Bucket field=root[0].spec.retentionRules[0].everySeconds reason="seconds must be a minimum of 3600"
}
