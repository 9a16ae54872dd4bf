package stack_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/stack"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

func TestOptionsFrom(t *testing.T) {
	t.Parallel()
	wall := time.Date(2030, 5, 6, 7, 8, 9, 0, time.FixedZone("CEST", 2*3600))
	config := func(kind, fields string) *krmfn.Config {
		rl, err := resourcelist.Parse([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: fn.kptkit.dev/v1alpha1\n  kind: " + kind + "\n  metadata: {name: apply}\n" + fields))
		if err != nil {
			t.Fatal(err)
		}
		return krmfn.ConfigOf(rl)
	}
	for _, tc := range []struct {
		name string
		cfg  *krmfn.Config
		env  krmfn.Env
		want stack.Options
		errs []string
	}{
		{"no config: the wall clock, in UTC", nil, krmtest.Env(wall, nil), stack.Options{Now: wall.UTC()}, nil},
		{"SOURCE_DATE_EPOCH", nil, krmtest.Env(wall, map[string]string{"SOURCE_DATE_EPOCH": " 1767225600\n"}),
			stack.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{"now wins", config("ApplyStack", "  stack: prod\n  now: 2026-03-04T05:06:07+02:00\n"), krmtest.Env(wall, map[string]string{"SOURCE_DATE_EPOCH": "1"}),
			stack.Options{Stack: "prod", Now: time.Date(2026, 3, 4, 3, 6, 7, 0, time.UTC)}, nil},
		{"a bad SOURCE_DATE_EPOCH", nil, krmtest.Env(wall, map[string]string{"SOURCE_DATE_EPOCH": "-5"}),
			stack.Options{Now: time.Time{}}, []string{`SOURCE_DATE_EPOCH="-5" is not a number of seconds since 1970-01-01 (UTC) up to year 9999`}},
		{"no clock at all", nil, krmfn.Env{}, stack.Options{Now: time.Unix(0, 0).UTC()}, nil},
		{"every config problem at once", config("ApplyStack", "  stack: a b\n  now: yesterday\n  stak: x\n"), krmtest.Env(wall, nil),
			stack.Options{Stack: "a b"}, []string{
				`functionConfig ApplyStack/apply: stak: unknown field "stak" (did you mean "stack"?)`,
				`functionConfig ApplyStack/apply: stack: stack name "a b" must not contain "/" or white space`,
				`functionConfig ApplyStack/apply: now: "yesterday" is not an RFC 3339 time (e.g. 2026-01-02T03:04:05Z)`,
			}},
		{"another kind", config("ApplyStacks", ""), krmtest.Env(wall, nil), stack.Options{}, []string{
			`functionConfig kind ApplyStacks (apiVersion "fn.kptkit.dev/v1alpha1") is not supported: accepted kinds are ApplyStack (fn.kptkit.dev/v1alpha1)`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, rs := stack.OptionsFrom(tc.cfg, tc.env)
			var errs []string
			for _, r := range rs {
				errs = append(errs, r.Message)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, errs); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewOptions: an ApplyStack made in Go gives the options OptionsFrom
// gives for its YAML, and its mistakes name their fields.
func TestNewOptions(t *testing.T) {
	t.Parallel()
	wall := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, tc := range []struct {
		name string
		cfg  v1alpha1.ApplyStack
		env  krmfn.Env
		want stack.Options
		errs []decode.Error
	}{
		{"every field", v1alpha1.ApplyStack{Stack: "prod", EnvRefs: map[string]decode.AnyScalar{"bucket": "b"}, Secrets: []string{"token"}, DryRun: true},
			krmtest.Env(wall, nil), stack.Options{Stack: "prod", Now: wall, Env: pkger.Env{"bucket": "b"}, Secrets: []string{"token"}, DryRun: true}, nil},
		{"every mistake at once", v1alpha1.ApplyStack{Stack: "a/b", EnvRefs: map[string]decode.AnyScalar{" ": "x"}, Secrets: []string{"ok", ""}},
			krmtest.Env(wall, map[string]string{"SOURCE_DATE_EPOCH": "soon"}), stack.Options{Stack: "a/b", Env: pkger.Env{" ": "x"}, Secrets: []string{"ok", ""}},
			[]decode.Error{
				{Path: "stack", Msg: `stack name "a/b" must not contain "/" or white space`},
				{Path: "envRefs", Msg: "an environment reference's key must not be empty"},
				{Path: "secrets[1]", Msg: "a secret's key must not be empty"},
				{Msg: `SOURCE_DATE_EPOCH="soon" is not a number of seconds since 1970-01-01 (UTC) up to year 9999`},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, errs := stack.NewOptions(tc.cfg, tc.env)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
