package lifecycle_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps/lifecycle"
)

func entries(t *testing.T, ss ...string) []lifecycle.Entry {
	t.Helper()
	var out []lifecycle.Entry
	for _, s := range ss {
		e, err := lifecycle.ParseEntry(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func TestParseEntry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want lifecycle.Entry
		err  string
	}{
		{in: "vault", want: lifecycle.Entry{Req: "vault"}},
		{in: "vault:app", want: lifecycle.Entry{Req: "vault", Pkg: "app"}},
		{in: "ingress.enabled:nginx", want: lifecycle.Entry{Req: "ingress.enabled", Pkg: "nginx", Param: true}},
		{in: "ingress.enabled", want: lifecycle.Entry{Req: "ingress.enabled", Param: true}},
		{in: ":", want: lifecycle.Entry{Erase: lifecycle.EraseAll}},
		{in: "vault:", want: lifecycle.Entry{Req: "vault", Erase: lifecycle.EraseReq}},
		{in: ":app", want: lifecycle.Entry{Pkg: "app", Erase: lifecycle.ErasePkg}},
		{in: "", err: "an empty entry means nothing: use `cap`, `cap:package`, `param.path:package`, `:`, `cap:` or `:package`"},
		{in: "a:b:c", err: `entry "a:b:c" holds more than one ":": use ` + "`requirement:package`"},
		{in: "a b", err: `entry "a b" holds white space`},
		{in: "a..b:x", err: `entry "a..b:x": parameter path "a..b" has an empty part`},
	}
	for _, tt := range tests {
		got, err := lifecycle.ParseEntry(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if diff := cmp.Diff(tt.err, gotErr); diff != "" {
			t.Errorf("ParseEntry(%q) error (-want +got):\n%s", tt.in, diff)
		}
		if err == nil {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseEntry(%q) (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != tt.in {
				t.Errorf("ParseEntry(%q).String() = %q", tt.in, got.String())
			}
		}
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		layers [][]string
		want   []string
	}{
		{name: "entries append in order, once", layers: [][]string{{"vault", "tls:app"}, {"dns", "vault"}}, want: []string{"vault", "tls:app", "dns"}},
		{name: "':' erases every earlier entry", layers: [][]string{{"vault", "tls:app"}, {":", "dns"}}, want: []string{"dns"}},
		{name: "'req:' erases the earlier entries for req", layers: [][]string{{"tls", "tls:app", "dns:app"}, {"tls:", "tls:web"}}, want: []string{"dns:app", "tls:web"}},
		{name: "':package' erases the earlier entries for the package (Hub never does)", layers: [][]string{{"tls:app", "dns:app", "dns:web", "x.enabled:app"}, {":app"}}, want: []string{"dns:web"}},
		{name: "':package' leaves the entries for every package", layers: [][]string{{"tls", "dns:app"}, {":app"}}, want: []string{"tls"}},
		{name: "an eraser works inside its own layer too", layers: [][]string{{"tls", "tls:"}}, want: nil},
		{name: "later layers add back what was erased", layers: [][]string{{"tls"}, {":"}, {"tls:app"}}, want: []string{"tls:app"}},
		{name: "a derived req:package supersedes the base's plain req", layers: [][]string{{"cdn", "dns"}, {"cdn:control-plane"}}, want: []string{"dns", "cdn:control-plane"}},
		{name: "a derived plain req supersedes the base's req:package", layers: [][]string{{"cdn:control-plane", "cdn:web", "dns:web"}, {"cdn"}}, want: []string{"dns:web", "cdn"}},
		{name: "parameter entries supersede each other alike", layers: [][]string{{"vault.enabled"}, {"vault.enabled:vault"}}, want: []string{"vault.enabled:vault"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var layers [][]lifecycle.Entry
			for _, l := range tt.layers {
				layers = append(layers, entries(t, l...))
			}
			got := lifecycle.Merge(layers...).Strings()
			if len(got) == 0 {
				got = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	params := map[string]any{
		"vault":   map[string]any{"enabled": true},
		"ingress": map[string]any{"enabled": "false", "class": "nginx"},
		"dns.on":  0,
		"flat.on": "0",
		"empty":   "",
		"no":      "no",
	}
	p, errs := lifecycle.New([]v1alpha1.Lifecycle{
		{Optional: []string{"dashboard"}, Requires: v1alpha1.RequiresTuning{Optional: []string{"tls", "vault.enabled:vault", "ingress.enabled:nginx"}}},
		{Optional: []string{"docs"}, Requires: v1alpha1.RequiresTuning{Optional: []string{"tls:", "tls:dashboard", "dns.on:dns", "empty:x", "missing.path:y", "no.x:z"}}},
	}, params, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	type row struct {
		Pkg        string
		Optional   bool
		TLS        string
		Off, Value string
	}
	var got []row
	for _, pkg := range []string{"dashboard", "docs", "vault", "nginx", "dns", "y", "z", "app"} {
		off, val := p.SwitchedOff(pkg)
		got = append(got, row{pkg, p.IsOptional(pkg), p.Softened("tls", pkg), off, val})
	}
	want := []row{
		{"dashboard", true, `"tls:dashboard"`, "", ""},
		{"docs", true, "lifecycle.optional", "", ""},
		{"vault", false, "", "", ""},
		{"nginx", false, "", "ingress.enabled", "false"},
		{"dns", false, "", "dns.on", "0"},
		{"y", false, "", "missing.path", "unknown"},
		{"z", false, "", "no.x", "unknown"},
		{"app", false, "", "", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMandatory(t *testing.T) {
	t.Parallel()
	p, errs := lifecycle.New([]v1alpha1.Lifecycle{{Mandatory: []string{"gke"}, Optional: []string{"gke", "x"}}}, nil, true)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := []bool{p.IsOptional("gke"), p.IsOptional("x"), p.IsOptional("other")}
	if diff := cmp.Diff([]bool{false, true, true}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNewReportsEveryBadEntry(t *testing.T) {
	t.Parallel()
	_, errs := lifecycle.New([]v1alpha1.Lifecycle{{Requires: v1alpha1.RequiresTuning{Optional: []string{"ok", "a:b:c", ""}}}}, nil, true)
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path)
	}
	if diff := cmp.Diff([]string{"lifecycle.requires.optional[1]", "lifecycle.requires.optional[2]"}, paths); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTruthy(t *testing.T) {
	t.Parallel()
	values := []any{false, "false", "", 0, "0", nil, 0.0, true, "true", "no", "off", 1, "x", map[string]any{}, []any{}}
	var got []bool
	for _, v := range values {
		got = append(got, lifecycle.Truthy(v))
	}
	want := []bool{false, false, false, false, false, false, false, true, true, true, true, true, true, true, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	params := map[string]any{"a": map[string]any{"b.c": map[string]any{"d": 1}}, "a.x": 2, "n": nil}
	type found struct {
		Value any
		Known bool
	}
	for path, want := range map[string]found{
		"a.b.c.d": {1, true}, "a.x": {2, true}, "n": {nil, true}, "a.b": {nil, false}, "z": {nil, false}, "a.x.y": {nil, false},
	} {
		v, known := lifecycle.Lookup(params, path)
		if got := (found{v, known}); !cmp.Equal(want, got) {
			t.Errorf("Lookup(%q) = %v, want %v", path, got, want)
		}
	}
}

func FuzzTuning(f *testing.F) {
	for _, s := range []string{"vault", "vault:app", ":", "tls:", ":app", "x.y:z", "a:b:c", "", ".:", "a..b"} {
		f.Add(s, "tls:app")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var layer []lifecycle.Entry
		for _, s := range []string{a, b} {
			e, err := lifecycle.ParseEntry(s)
			if err != nil {
				continue
			}
			if back, err := lifecycle.ParseEntry(e.String()); err != nil || back != e {
				t.Fatalf("%q parses to %+v, which writes back as %q (%+v, %v)", s, e, e.String(), back, err)
			}
			layer = append(layer, e)
		}
		merged := lifecycle.Merge(layer)
		for _, e := range merged {
			if e.Erase != lifecycle.Keep {
				t.Fatalf("merge kept an eraser: %v", merged.Strings())
			}
		}
		_, _ = merged.CapabilityOptional(a, b)
		_ = merged.Conditions(b)
	})
}
