package deps_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
)

func TestParseOperation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want v1alpha1.Operation
		err  string
	}{
		{in: "", want: v1alpha1.Operation{Verb: "install"}},
		{in: "install", want: v1alpha1.Operation{Verb: "install"}},
		{in: " upgrade  db   2.1.0 ", want: v1alpha1.Operation{Verb: "upgrade", Package: "db", Version: "2.1.0"}},
		{in: "delete db", want: v1alpha1.Operation{Verb: "delete", Package: "db"}},
		{in: "upgrade db", want: v1alpha1.Operation{Verb: "upgrade", Package: "db"}},
		{in: "upgrade", err: "\"upgrade\": upgrade takes a package and, optionally, a version: `upgrade <package> [<version>]`"},
		{in: "delete", err: "\"delete\": delete takes one package: `delete <package>`"},
		{in: "install db", err: "\"install db\": install takes no arguments (it installs the package's PackageInstalls and discovered dependencies)"},
		{in: "remove db", err: "unknown operation \"remove db\": use `install`, `upgrade <package> [<version>]` or `delete <package>`"},
	}
	for _, tt := range tests {
		got, err := v1alpha1.ParseOperation(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if diff := cmp.Diff(tt.err, gotErr); diff != "" {
			t.Errorf("ParseOperation(%q) error (-want +got):\n%s", tt.in, diff)
		}
		if err == nil {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseOperation(%q) (-want +got):\n%s", tt.in, diff)
			}
		}
	}
}

func TestResolveDepsDefaultAndValidate(t *testing.T) {
	t.Parallel()
	node := func(s string) *yaml.Node {
		rn, err := yaml.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return rn.YNode()
	}
	tests := []struct {
		name   string
		cfg    v1alpha1.ResolveDeps
		layers int
		errs   []decode.Error
	}{
		{name: "defaults", cfg: v1alpha1.ResolveDeps{}},
		{name: "one layer", cfg: v1alpha1.ResolveDeps{Lifecycle: node("optional: [a]")}, layers: 1},
		{name: "two layers", cfg: v1alpha1.ResolveDeps{Lifecycle: node("- optional: [a]\n- mandatory: [b]")}, layers: 2},
		{
			name: "everything wrong",
			cfg: v1alpha1.ResolveDeps{Lifecycle: node("- optionl: [a]"), Environment: []string{"ok", " "},
				ClusterPrefix: "Edge_01", Operation: "purge", Providers: map[string]string{"cert-manager.io": " "}},
			layers: 1,
			errs: []decode.Error{
				{Path: "operation", Msg: "unknown operation \"purge\": use `install`, `upgrade <package> [<version>]` or `delete <package>`"},
				{Path: "lifecycle[0].optionl", Msg: "unknown field \"optionl\" (did you mean \"optional\"?)"},
				{Path: "environment[1]", Msg: "must not be empty"},
				{Path: "providers.cert-manager.io", Msg: "must name the package that provides the API group"},
				{Path: "clusterPrefix", Msg: "\"Edge_01\" must hold only lower-case letters, digits, '-' and '.' (it starts PackageVariant names)"},
			},
		},
		{name: "a scalar lifecycle", cfg: v1alpha1.ResolveDeps{Lifecycle: node("yes")},
			errs: []decode.Error{{Path: "lifecycle", Msg: "must be a mapping (optional, mandatory, requires) or a list of them, base stack first"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.cfg
			c.Default()
			if !*c.Discover.APIs || !*c.Discover.RBAC || (tt.cfg.Operation == "" && c.Operation != "install") {
				t.Errorf("defaults not set: %+v", c)
			}
			if diff := cmp.Diff(tt.errs, c.Validate()); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			layers, _ := c.Layers()
			if len(layers) != tt.layers {
				t.Errorf("%d layers, want %d", len(layers), tt.layers)
			}
		})
	}
}
