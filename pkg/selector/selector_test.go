package selector_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/selector"
)

func TestMatches(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"env": "prod", "tier": "edge", "region": "us-east1"}
	tests := []struct {
		name        string
		matchLabels map[string]string
		exprs       []selector.Requirement
		want        bool
	}{
		{name: "empty selector matches everything", want: true},
		{name: "matchLabels equal", matchLabels: map[string]string{"env": "prod"}, want: true},
		{name: "matchLabels differ", matchLabels: map[string]string{"env": "dev"}, want: false},
		{name: "matchLabels missing", matchLabels: map[string]string{"team": "a"}, want: false},
		{name: "in", exprs: []selector.Requirement{{Key: "tier", Operator: selector.In, Values: []string{"core", "edge"}}}, want: true},
		{name: "in missing key", exprs: []selector.Requirement{{Key: "team", Operator: selector.In, Values: []string{"a"}}}, want: false},
		{name: "notin", exprs: []selector.Requirement{{Key: "tier", Operator: selector.NotIn, Values: []string{"edge"}}}, want: false},
		{name: "notin missing key matches", exprs: []selector.Requirement{{Key: "team", Operator: selector.NotIn, Values: []string{"a"}}}, want: true},
		{name: "exists", exprs: []selector.Requirement{{Key: "region", Operator: selector.Exists}}, want: true},
		{name: "does not exist", exprs: []selector.Requirement{{Key: "region", Operator: selector.DoesNotExist}}, want: false},
		{
			name:        "all must hold",
			matchLabels: map[string]string{"env": "prod"},
			exprs:       []selector.Requirement{{Key: "legacy", Operator: selector.DoesNotExist}, {Key: "tier", Operator: selector.In, Values: []string{"core"}}},
			want:        false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel, errs := selector.New(tt.matchLabels, tt.exprs)
			if len(errs) > 0 {
				t.Fatalf("New: %v", errs)
			}
			if got := sel.Matches(labels); got != tt.want {
				t.Errorf("Matches(%v) with %q = %v, want %v", labels, sel, got, tt.want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		matchLabels map[string]string
		exprs       []selector.Requirement
		want        []decode.Error
	}{
		{
			name:  "invalid operator",
			exprs: []selector.Requirement{{Key: "a", Operator: "Equals", Values: []string{"b"}}},
			want: []decode.Error{{Path: "matchExpressions[0].operator",
				Msg: `"Equals" is not a valid label selector operator (want In, NotIn, Exists or DoesNotExist)`}},
		},
		{
			name:  "in without values",
			exprs: []selector.Requirement{{Key: "a", Operator: selector.NotIn}},
			want: []decode.Error{{Path: "matchExpressions[0].values",
				Msg: `Invalid value: []: for 'in', 'notin' operators, values set can't be empty`}},
		},
		{
			name:  "exists with values",
			exprs: []selector.Requirement{{Key: "a", Operator: selector.DoesNotExist, Values: []string{"b"}}},
			want: []decode.Error{{Path: "matchExpressions[0].values",
				Msg: `Invalid value: ["b"]: values set must be empty for exists and does not exist`}},
		},
		{
			name:        "empty key and long value",
			matchLabels: map[string]string{"": "x", "ok": strings.Repeat("a", 64)},
			want: []decode.Error{
				{Path: "matchLabels.", Msg: `Invalid value: "": name part must be non-empty`},
				{Path: "matchLabels.ok", Msg: `Invalid value: "` + strings.Repeat("a", 64) + `": must be no more than 63 characters`},
			},
		},
		{
			name:  "prefix and name",
			exprs: []selector.Requirement{{Key: "/x", Operator: selector.Exists}, {Key: "a/b/c", Operator: selector.Exists}},
			want: []decode.Error{
				{Path: "matchExpressions[0].key", Msg: `Invalid value: "/x": prefix part must be non-empty`},
				{Path: "matchExpressions[1].key", Msg: `Invalid value: "a/b/c": a qualified name must be a name part with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, got := selector.New(tt.matchLabels, tt.exprs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("New errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		matchLabels map[string]string
		exprs       []selector.Requirement
		want        string
	}{
		{name: "empty", want: ""},
		{name: "matchLabels sorted by key", matchLabels: map[string]string{"tier": "edge", "env": "prod"}, want: "env=prod,tier=edge"},
		{name: "in with one value", exprs: []selector.Requirement{{Key: "tier", Operator: selector.In, Values: []string{"edge"}}}, want: "tier=edge"},
		{name: "in", exprs: []selector.Requirement{{Key: "tier", Operator: selector.In, Values: []string{"edge", "core"}}}, want: "tier in (edge,core)"},
		{name: "notin", exprs: []selector.Requirement{{Key: "tier", Operator: selector.NotIn, Values: []string{"edge"}}}, want: "tier notin (edge)"},
		{name: "exists", exprs: []selector.Requirement{{Key: "example.com/app", Operator: selector.Exists}}, want: "example.com/app"},
		{name: "does not exist", exprs: []selector.Requirement{{Key: "legacy", Operator: selector.DoesNotExist}}, want: "!legacy"},
		{
			name:        "matchLabels first, then expressions in order",
			matchLabels: map[string]string{"env": "prod"},
			exprs:       []selector.Requirement{{Key: "legacy", Operator: selector.DoesNotExist}, {Key: "app", Operator: selector.Exists}},
			want:        "env=prod,!legacy,app",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel, errs := selector.New(tt.matchLabels, tt.exprs)
			if len(errs) > 0 {
				t.Fatalf("New: %v", errs)
			}
			if diff := cmp.Diff(tt.want, sel.String()); diff != "" {
				t.Errorf("String (-want +got):\n%s", diff)
			}
		})
	}
}

func ExampleSelector_String() {
	sel, _ := selector.New(map[string]string{"env": "prod"}, []selector.Requirement{
		{Key: "tier", Operator: selector.In, Values: []string{"edge", "core"}},
		{Key: "legacy", Operator: selector.DoesNotExist},
	})
	fmt.Println(sel)
	fmt.Println(sel.Matches(map[string]string{"env": "prod", "tier": "core"}))
	// Output:
	// env=prod,tier in (edge,core),!legacy
	// true
}

// FuzzSelector checks that any requirement is either refused or matches as
// its operator says, and that nothing panics.
func FuzzSelector(f *testing.F) {
	f.Add("tier", "In", "edge", "edge")
	f.Add("example.com/app", "NotIn", "web", "db")
	f.Add("a", "Exists", "", "x")
	f.Add("b", "DoesNotExist", "", "")
	f.Add("bad key", "Equals", "x y", "z")
	f.Fuzz(func(t *testing.T, key, op, value, label string) {
		var values []string
		if value != "" {
			values = []string{value}
		}
		sel, errs := selector.New(nil, []selector.Requirement{{Key: key, Operator: op, Values: values}})
		if len(errs) > 0 {
			return
		}
		labels := map[string]string{key: label}
		var want bool
		switch op {
		case selector.In:
			want = label == value
		case selector.NotIn:
			want = label != value
		case selector.Exists:
			want = true
		case selector.DoesNotExist:
			want = false
		default:
			t.Fatalf("operator %q accepted", op)
		}
		if got := sel.Matches(labels); got != want {
			t.Errorf("%q matches %v = %v, want %v", sel, labels, got, want)
		}
		_ = sel.String()
	})
}
