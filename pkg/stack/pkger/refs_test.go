package pkger_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		kind     string
		doc      string
		env      pkger.Env
		wantName string
		// wantNode is the resolved object (the object itself when it has no
		// environment reference to resolve).
		wantNode string
		wantRefs []pkger.Ref
		wantBad  []pkger.Problem
	}{{
		name:     "no references: the object itself",
		kind:     "Label",
		doc:      "metadata: {name: team}\nspec: {color: red}\n",
		wantName: "team",
		wantNode: "metadata: {name: team}\nspec: {color: red}\n",
	}, {
		name: "value > default > env-<key>",
		kind: "Bucket",
		doc: "metadata:\n  name: {envRef: {key: meta, default: m}}\nspec:\n  name: {envRef: {key: spec, default: s}}\n" +
			"  associations:\n  - kind: Label\n    name: {envRef: {key: label}}\n",
		env:      pkger.Env{"meta": "given"},
		wantName: "given",
		wantNode: "metadata:\n  name: given\nspec:\n  name: s\n  associations:\n  - kind: Label\n    name: env-label\n",
		wantRefs: []pkger.Ref{
			{Field: "metadata.name", Env: "meta", Default: "m", HasDefault: true},
			{Field: "spec.name", Env: "spec", Default: "s", HasDefault: true},
			{Field: "spec.associations[0].name", Env: "label"},
		},
	}, {
		name:     "an empty value counts as none; a number default is its text",
		kind:     "Label",
		doc:      "metadata:\n  name: {envRef: {key: meta, default: 42}}\n",
		env:      pkger.Env{"meta": ""},
		wantName: "42",
		wantNode: "metadata:\n  name: \"42\"\n",
		wantRefs: []pkger.Ref{{Field: "metadata.name", Env: "meta", Default: "42", HasDefault: true}},
	}, {
		name:     "secrets stay references; endpoints take env references in secret fields",
		kind:     "NotificationEndpointHTTP",
		doc:      "metadata: {name: h}\nspec:\n  username: {envRef: {key: user}}\n  password: {secretRef: {key: pw}}\n",
		wantName: "h",
		wantNode: "metadata: {name: h}\nspec:\n  username: env-user\n  password: {secretRef: {key: pw}}\n",
		wantRefs: []pkger.Ref{{Field: "spec.username", Env: "user"}, {Field: "spec.password", Secret: "pw"}},
	}, {
		name:     "the rule's endpoint and the variable's selections",
		kind:     "Variable",
		doc:      "metadata: {name: v}\nspec:\n  selected:\n  - {envRef: {key: pick}}\n  - plain\n",
		env:      pkger.Env{"pick": "one"},
		wantName: "v",
		wantNode: "metadata: {name: v}\nspec:\n  selected:\n  - one\n  - plain\n",
		wantRefs: []pkger.Ref{{Field: "spec.selected[0]", Env: "pick"}},
	}, {
		name:     "references pkger would not read",
		kind:     "Label",
		doc:      "metadata:\n  name: {secretRef: {key: s}}\nspec:\n  color: {envRef: {key: c}}\n  name: {envRef: {default: x}}\n  description: {envRef: {key: a}, secretRef: {key: b}}\n  selected: [{envRef: {key: only-variables}}]\n",
		wantNode: "metadata:\n  name: {secretRef: {key: s}}\nspec:\n  color: {envRef: {key: c}}\n  name: {envRef: {default: x}}\n  description: {envRef: {key: a}, secretRef: {key: b}}\n  selected: [{envRef: {key: only-variables}}]\n",
		wantBad: []pkger.Problem{
			{Field: "metadata.name", Reason: "secretRef is not taken here: only a notification endpoint's username, password, token and routingKey take a secret"},
			{Field: "spec.color", Warning: true, Reason: "envRef is not resolved here: pkger reads this field as a plain value (metadata.name, spec.name, spec.associations[].name take environment references)"},
			{Field: "spec.name", Reason: "envRef has no key: give it one (envRef: {key: name, default: value})"},
			{Field: "spec.description", Reason: "a field takes an envRef or a secretRef, not both"},
			{Field: "spec.selected[0]", Warning: true, Reason: "envRef is not resolved here: pkger reads this field as a plain value (metadata.name, spec.name, spec.associations[].name take environment references)"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := yaml.MustParse(tc.doc)
			before := n.MustString()
			got := pkger.Resolve(tc.kind, n, tc.env)
			if got.Name != tc.wantName {
				t.Errorf("name %q, want %q", got.Name, tc.wantName)
			}
			if diff := cmp.Diff(tc.wantNode, got.Node.MustString()); diff != "" {
				t.Errorf("resolved object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRefs, got.Refs); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantBad, got.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if n.MustString() != before {
				t.Errorf("Resolve changed the object:\n%s", n.MustString())
			}
		})
	}
}

func TestValidName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"rucket-1": true, "123-abc": true, "a": true, "lucid_einstein": true, strings.Repeat("a", 63): true,
		"": false, "Team": false, "a.b": false, "-a": false, "a-": false, "_a": false, "a b": false, strings.Repeat("a", 64): false,
	} {
		if got := pkger.ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

// FuzzResolve: any object resolves without panicking and without changing
// it; the resolved object resolves to itself (no environment reference is
// left where pkger reads one), and the name is what the resolved object
// holds.
func FuzzResolve(f *testing.F) {
	f.Add("Bucket", "metadata:\n  name: {envRef: {key: k, default: d}}\nspec:\n  associations:\n  - {kind: Label, name: {envRef: {key: l}}}\n", "k", "v")
	f.Add("NotificationEndpointSlack", "metadata: {name: s}\nspec: {token: {secretRef: {key: t}}, url: {envRef: {key: u}}}\n", "u", "")
	f.Add("Variable", "spec: {selected: [{envRef: {key: s}}, {envRef: {}}], x: &a {envRef: {key: q}}, y: *a}\n", "s", "x")
	f.Fuzz(func(t *testing.T, kind, doc, key, value string) {
		nodes, err := read(doc)
		if err != nil || len(nodes) == 0 {
			return
		}
		n := nodes[0]
		before, err := n.String()
		if err != nil {
			return
		}
		env := pkger.Env{key: value}
		got := pkger.Resolve(kind, n, env)
		if after, _ := n.String(); after != before {
			t.Fatalf("Resolve changed the object:\n%s\nto\n%s", before, after)
		}
		again := pkger.Resolve(kind, got.Node, env)
		for _, r := range again.Refs {
			if r.Env != "" {
				t.Fatalf("%s: an environment reference is left at %s", doc, r.Field)
			}
		}
		if again.Name != got.Name {
			t.Fatalf("name %q resolves again to %q", got.Name, again.Name)
		}
	})
}

func ExampleResolve() {
	bucket := yaml.MustParse("kind: Bucket\nmetadata:\n  name:\n    envRef: {key: bucket-name, default: metrics}\nspec:\n  name: {envRef: {key: display-name}}\n")
	r := pkger.Resolve("Bucket", bucket, pkger.Env{"bucket-name": "metrics-prod"})
	fmt.Println(r.Name)
	for _, ref := range r.Refs {
		fmt.Printf("%s: %s = %s (given: %v)\n", ref.Field, ref.Env, ref.Value(pkger.Env{"bucket-name": "metrics-prod"}), ref.Given(pkger.Env{"bucket-name": "metrics-prod"}))
	}
	// Output:
	// metrics-prod
	// metadata.name: bucket-name = metrics-prod (given: true)
	// spec.name: display-name = env-display-name (given: false)
}
