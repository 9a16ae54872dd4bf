package inject_test

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

func FuzzFunction(f *testing.F) {
	krmtest.Seed(f, "testdata")
	f.Fuzz(func(t *testing.T, in []byte) {
		krmtest.Fuzz(t, inject.Function, in)
	})
}

// FuzzConfig fuzzes what users write as functionConfig (PackageVariant or
// InjectConfig): reading it never panics, and a request read without
// errors has a scope and a name for every injector.
func FuzzConfig(f *testing.F) {
	f.Add(pv("team-a", "name: a", "group: infra.nephio.org\n    kind: WorkloadCluster\n    name: b"))
	f.Add("apiVersion: fn.kptkit.dev/v1alpha1\nkind: InjectConfig\nnamespace: x\ninjectors:\n- name: a\nobjects:\n- " +
		strings.ReplaceAll(cm("a", "x", inCluster, "v"), "\n", "\n  "))
	f.Add("apiVersion: fn.kptkit.dev/v1alpha1\nkind: InjectConfig\ninjectors: [{name: a, version: 3}]\nobjects: [1, {kind: X}]")
	f.Fuzz(func(t *testing.T, config string) {
		n, err := yaml.Parse(config)
		if err != nil || n.YNode().Kind != yaml.MappingNode {
			return
		}
		rl, err := resourcelist.Parse(resourceList("apiVersion: v1\nkind: Placeholder", kf, cm("p", "", point, "x"), cm("a", "", inCluster, "v")))
		if err != nil {
			t.Fatal(err)
		}
		c := &krmfn.Config{Node: n, Header: resourcelist.HeaderOf(n)}
		req, rs := inject.RequestFrom(c)
		if len(rs) == 0 {
			if req.Namespace == "" {
				t.Errorf("request without a scope from %q", config)
			}
			for _, s := range req.Injectors {
				if s.Name == "" {
					t.Errorf("injector without a name accepted from %q", config)
				}
			}
		}
		rl.AddResults(inject.Apply(rl, req)...)
		if _, err := rl.Write(); err != nil {
			t.Errorf("cannot write the output for %q: %v", config, err)
		}
	})
}

// FuzzKptfile fuzzes the Kptfile whose status.conditions and
// info.readinessGates the function keeps: it never panics, and when it
// reports no error the Kptfile holds the point's condition exactly once,
// and both lists are sorted.
func FuzzKptfile(f *testing.F) {
	f.Add(kf)
	f.Add(kf + "\ninfo: {readinessGates: [{conditionType: b}, {conditionType: a}, 3]}\nstatus:\n  conditions:\n  - type: z\n  - {}\n  - type: config.injection.ConfigMap.p\n  - type: config.injection.ConfigMap.p")
	f.Add(kf + "\nstatus: ready")
	f.Add(kf + "\ninfo: &a {x: *a}")
	f.Fuzz(func(t *testing.T, kptfile string) {
		n, err := yaml.Parse(kptfile)
		if err != nil || n.YNode().Kind != yaml.MappingNode {
			return
		}
		h := resourcelist.HeaderOf(n)
		if !h.IsRootKptfile() || h.InCluster() || strings.Contains(kptfile, "config-injection") {
			return
		}
		in := resourceList(pv("", "name: a"), cm("p", "", point, "x"), cm("a", "", inCluster, "v"))
		rl, err := resourcelist.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rl.Append(n, ""); err != nil {
			t.Fatal(err)
		}
		krmfn.Apply(inject.Function, rl, krmfn.Env{})
		if rl.HasError() {
			return
		}
		kfs := rl.Select(resourcelist.Header.IsRootKptfile)
		if len(kfs) != 1 {
			t.Fatalf("want 1 root Kptfile, got %d", len(kfs))
		}
		conds := keys(t, kfs[0].Node(), fieldpath.Path{"status", "conditions"}, "type")
		if c := slicesCount(conds, "config.injection.ConfigMap.p"); c != 1 {
			t.Errorf("condition config.injection.ConfigMap.p appears %d times in %q", c, conds)
		}
		gates := keys(t, kfs[0].Node(), fieldpath.Path{"info", "readinessGates"}, "conditionType")
		for _, l := range [][]string{conds, gates} {
			if !slices.IsSorted(l) {
				t.Errorf("not sorted: %q", l)
			}
		}
		if _, err := rl.Write(); err != nil {
			t.Errorf("cannot write the output: %v", err)
		}
	})
}

// keys returns the key field of each entry of the list at p.
func keys(t *testing.T, n *yaml.RNode, p fieldpath.Path, key string) []string {
	t.Helper()
	seq := fieldpath.Lookup(n, p)
	if seq == nil || seq.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, e := range seq.YNode().Content {
		v, _ := fieldpath.String(yaml.NewRNode(e), fieldpath.Path{key})
		out = append(out, v)
	}
	return out
}

func slicesCount(l []string, s string) int {
	n := 0
	for _, x := range l {
		if x == s {
			n++
		}
	}
	return n
}
