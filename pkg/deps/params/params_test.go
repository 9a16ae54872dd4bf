package params_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/deps/params"
)

type P = v1alpha1.Parameter

// locked renders every locked value as `name = value (source)`, secrets
// marked, and the problems after them.
func locked(l *params.Locked, s *params.Set, problems []params.Problem) []string {
	var out []string
	for _, q := range s.Names() {
		v, _ := l.Get(q)
		out = append(out, line(q, v.Value, v.Source, v.Secret))
	}
	return withProblems(out, problems)
}

// line renders one value as `name = value (source)`, marked when secret.
func line(name, value, source string, secret bool) string {
	s := name + " = " + value + " (" + source + ")"
	if secret {
		s += " secret"
	}
	return s
}

// withProblems appends the problems to the rendered values.
func withProblems(out []string, problems []params.Problem) []string {
	for _, p := range problems {
		out = append(out, "problem: "+p.Msg)
	}
	return out
}

func TestMergeAndLock(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DOMAIN": "edge.example.com", "TOKEN": "s3cret"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name   string
		layers []params.Layer
		want   []string
	}{{
		name: "later layers overwrite value and default; user wins over tech",
		layers: []params.Layer{
			{Source: "Parameters/base", Params: []P{{Name: "dns.domain", Kind: "tech", Value: "base.example.com"}, {Name: "replicas", Default: "1"}}},
			{Source: "Parameters/edge", Params: []P{{Name: "dns.domain", Kind: "user", Value: "edge.example.com"}}},
		},
		want: []string{"dns.domain = edge.example.com (Parameters/edge)", "replicas = 1 (default of Parameters/base)"},
	}, {
		name: "only a package's user parameters reach the stack, qualified with it",
		layers: []params.Layer{
			{Source: "package cert-manager", Package: "cert-manager", Params: []P{{Name: "email", Kind: "user", Default: "ops@example.com"}, {Name: "image", Value: "cm:1"}}},
		},
		want: []string{"email|cert-manager = ops@example.com (default of package cert-manager)"},
	}, {
		name: "an unqualified parameter merges into the earlier qualified ones of its name",
		layers: []params.Layer{
			{Source: "Parameters/base", Params: []P{{Name: "replicas", Component: "web", Value: "2"}, {Name: "replicas", Component: "db", Value: "3"}}},
			{Source: "Parameters/edge", Params: []P{{Name: "replicas", Value: "1"}}},
		},
		want: []string{"replicas = 1 (Parameters/edge)", "replicas|db = 1 (Parameters/edge)", "replicas|web = 1 (Parameters/edge)"},
	}, {
		name: "fromEnv, then default; expressions reference each other, within a component first",
		layers: []params.Layer{{Source: "Parameters/stack", Params: []P{
			{Name: "dns.domain", FromEnv: "DOMAIN", Default: "example.com"},
			{Name: "region", FromEnv: "REGION", Default: "eu"},
			{Name: "ingress.host", Value: "apps.${dns.domain}"},
			{Name: "name", Value: "x"},
			{Name: "name", Component: "web", Value: "web"},
			{Name: "url", Component: "web", Value: "https://${name}.${ingress.host}/${region}"},
		}}},
		want: []string{
			"dns.domain = edge.example.com (environment variable DOMAIN)",
			"ingress.host = apps.edge.example.com (Parameters/stack, with ${dns.domain} from environment variable DOMAIN)",
			"name = x (Parameters/stack)",
			"name|web = web (Parameters/stack)",
			"region = eu (default of Parameters/stack)",
			"url|web = https://web.apps.edge.example.com/eu (Parameters/stack, with ${name} from Parameters/stack, ${ingress.host} from Parameters/stack, ${region} from default of Parameters/stack)",
		},
	}, {
		name: "secrets stay secret through expressions",
		layers: []params.Layer{{Source: "Parameters/stack", Params: []P{
			{Name: "db.password", FromEnv: "TOKEN", Secret: true},
			{Name: "db.url", Value: "postgres://app:${db.password}@db"},
		}}},
		want: []string{"db.password = s3cret (environment variable TOKEN) secret", "db.url = postgres://app:s3cret@db (Parameters/stack, with ${db.password} from environment variable TOKEN) secret"},
	}, {
		name: "a cycle, an unset variable, an empty parameter, an unknown name: all at once",
		layers: []params.Layer{{Source: "Parameters/stack", Params: []P{
			{Name: "a", Value: "${b}"},
			{Name: "b", Value: "x-${a}"},
			{Name: "key", FromEnv: "UNSET_KEY"},
			{Name: "owner"},
			{Name: "note", Empty: "allow"},
			{Name: "typo", Value: "${dns.domian}"},
			{Name: "cel", Value: "#{1 + 1}"},
		}}},
		want: []string{
			"a = x- (Parameters/stack, with ${b} from Parameters/stack)", "b = x- (Parameters/stack)", "cel = #{1 + 1} (Parameters/stack)", "key =  ()", "note =  ()", "owner =  ()",
			"typo = ${dns.domian} (Parameters/stack)",
			"problem: parameter cycle: a -> b -> a",
			`problem: "#{1 + 1}": #{...} (Hub's CEL expressions) is not supported: use ${name}`,
			"problem: parameter typo: ${dns.domian} names no parameter",
			"problem: parameter key: environment variable UNSET_KEY (fromEnv) is unset and the parameter has no default: set the variable, give a default, or mark it empty: allow",
			"problem: parameter owner is empty: give it a value, a default or fromEnv, or mark it empty: allow",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := params.Merge(tt.layers)
			l, problems := s.Lock(getenv)
			if diff := cmp.Diff(tt.want, locked(l, s, problems)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestScope(t *testing.T) {
	t.Parallel()
	s := params.Merge([]params.Layer{
		{Source: "package cert-manager", Package: "cert-manager", Params: []P{{Name: "email", Kind: "user"}}},
		{Source: "Parameters/stack", Params: []P{
			{Name: "dns.domain", Value: "example.com"},
			{Name: "email", Value: "ops@example.com"},
			{Name: "replicas", Value: "2"},
			{Name: "replicas", Component: "web", Value: "3"},
			{Name: "ca", Value: "${cert-manager:ca.crt}"},
			{Name: "token", Value: "t0k", Secret: true},
		}},
	})
	l, problems := s.Lock(nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	outputs := []params.Output{{Package: "old-dns", Name: "dns.domain", Value: "old.example.com"}, {Package: "cert-manager", Name: "ca.crt", Value: "PEM"}, {Package: "dns", Name: "dns.domain", Value: "zone.example.com"}}
	render := func(rs []params.Resolved, ps []params.Problem) []string {
		var out []string
		for _, r := range rs {
			out = append(out, line(r.Name, r.Value, r.Source, r.Secret))
		}
		return withProblems(out, ps)
	}
	tests := []struct {
		name     string
		pkg      string
		declared []P
		want     []string
	}{{
		name: "name|package first, then the nearest output, then the plain name, then the package's own",
		pkg:  "web",
		declared: []P{
			{Name: "replicas"}, {Name: "dns.domain"}, {Name: "email"}, {Name: "image", Value: "web:${replicas}"}, {Name: "port", Default: "8080"},
			{Name: "ca"}, {Name: "host", Value: "web.${dns.domain}"},
		},
		want: []string{
			"replicas = 3 (Parameters/stack)",
			"dns.domain = zone.example.com (output dns:dns.domain)",
			"email = ops@example.com (Parameters/stack)",
			"image = web:3 (package web, with ${replicas} from Parameters/stack)",
			"port = 8080 (default of package web)",
			"ca = PEM (Parameters/stack, with ${cert-manager:ca.crt} from output cert-manager:ca.crt)",
			"host = web.zone.example.com (package web, with ${dns.domain} from output dns:dns.domain)",
		},
	}, {
		name:     "secret when declared so or made from a secret",
		pkg:      "db",
		declared: []P{{Name: "password", Secret: true, Default: "x"}, {Name: "token"}, {Name: "dsn", Value: "db?token=${token}"}},
		want:     []string{"password = x (default of package db) secret", "token = t0k (Parameters/stack) secret", "dsn = db?token=t0k (package db, with ${token} from Parameters/stack) secret"},
	}, {
		name:     "what cannot be derived, all at once",
		pkg:      "web",
		declared: []P{{Name: "missing"}, {Name: "maybe", Empty: "allow"}, {Name: "bad", Value: "${nope}"}, {Name: "out", Value: "${dns:zone}"}},
		want: []string{
			"maybe =  (empty (allowed by package web))",
			"bad = ${nope} (package web)",
			"out = ${dns:zone} (package web)",
			"problem: package web: parameter missing cannot be derived from the stack's parameters nor outputs: set it in a Parameters item (name: missing, component: web) or give it a default",
			"problem: package web: ${nope} names no parameter or output",
			"problem: package web: ${dns:zone}: dns has no output zone (outputs come from the status of the InstalledPackages before it)",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rs, ps := l.Scope(tt.pkg, tt.declared, outputs)
			if diff := cmp.Diff(tt.want, render(rs, ps)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff(map[string]any{"dns.domain": "example.com", "email": "ops@example.com", "replicas": "2", "token": "t0k"}, l.Conditions()); diff != "" {
		t.Errorf("Conditions (-want +got):\n%s", diff)
	}
}

func anyScalar(s string) decode.AnyScalar { return decode.AnyScalar(s) }
