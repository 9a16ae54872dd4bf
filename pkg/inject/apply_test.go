package inject_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/result"
)

// resourceList builds a ResourceList from items (YAML documents, each
// starting with "apiVersion:") and a functionConfig.
func resourceList(config string, items ...string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, it := range items {
		b.WriteString(indent(it, "- ", "  "))
	}
	if config != "" {
		b.WriteString("functionConfig:\n" + indent(config, "  ", "  "))
	}
	return []byte(b.String())
}

func indent(s, first, rest string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if i == 0 {
			b.WriteString(first + line + "\n")
		} else {
			b.WriteString(rest + line + "\n")
		}
	}
	return b.String()
}

// run runs inject-config and returns the output's items and the messages
// of its results.
func run(t *testing.T, in []byte) (string, []string) {
	t.Helper()
	out, rs := krmfn.Process(inject.Function, in, krmtest.Env(krmtest.Clock, nil))
	var msgs []string
	for _, r := range rs {
		msgs = append(msgs, string(r.Severity)+": "+r.Message)
	}
	return krmtest.ItemsOf(out), msgs
}

const kf = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
  annotations:
    config.kubernetes.io/path: Kptfile`

func cm(name, ns, annotation, data string) string {
	s := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	if ns != "" {
		s += "  namespace: " + ns + "\n"
	}
	s += "  annotations:\n    " + annotation + "\n"
	if data != "" {
		s += "data:\n  v: " + data + "\n"
	}
	return s
}

func pv(ns string, injectors ...string) string {
	s := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: pv\n"
	if ns != "" {
		s += "  namespace: " + ns + "\n"
	}
	s += "spec:\n  injectors:\n"
	for _, inj := range injectors {
		s += "  - " + inj + "\n"
	}
	return s
}

const (
	point     = "kpt.dev/config-injection: required"
	inCluster = `kptkit.dev/in-cluster: "true"`
)

// TestMatching checks which source fills a point: only objects of the
// point's exact type in the scope namespace are seen, injectors are walked
// in order and the first hit wins.
func TestMatching(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		config  string
		sources []string
		want    string // the injected value, "" for none
		cond    string // the condition's message
	}{
		"a source with no namespace is in default": {
			config:  pv("", "name: src"),
			sources: []string{cm("src", "", inCluster, "from-default")},
			want:    "from-default",
			cond:    `injected resource "src" from cluster`,
		},
		"a PackageVariant in default sees default": {
			config:  pv("default", "name: src"),
			sources: []string{cm("src", "default", inCluster, "from-default")},
			want:    "from-default",
			cond:    `injected resource "src" from cluster`,
		},
		"another namespace is never seen": {
			config:  pv("team-a", "name: src", "kind: ConfigMap\n    name: src"),
			sources: []string{cm("src", "", inCluster, "from-default"), cm("src", "team-b", inCluster, "from-b")},
			cond:    "no in-cluster resources of type v1.ConfigMap",
		},
		"the scope namespace's object wins over a same-named one elsewhere": {
			config:  pv("team-a", "name: src"),
			sources: []string{cm("src", "", inCluster, "from-default"), cm("src", "team-a", inCluster, "from-a")},
			want:    "from-a",
			cond:    `injected resource "src" from cluster`,
		},
		"first hit wins": {
			config:  pv("", "name: missing", "name: second", "name: third"),
			sources: []string{cm("third", "", inCluster, "3"), cm("second", "", inCluster, "2")},
			want:    "2",
			cond:    `injected resource "second" from cluster`,
		},
		"the first hit wins even without the field": {
			config:  pv("", "name: empty", "name: full"),
			sources: []string{cm("empty", "", inCluster, ""), cm("full", "", inCluster, "x")},
			cond:    `field "data" not found in resource "empty"`,
		},
		"group, version and kind must each equal the point's": {
			config: pv("", `group: ""`+"\n    version: v2\n    name: a", "group: apps\n    name: b",
				"kind: Secret\n    name: c", `group: ""`+"\n    version: v1\n    kind: ConfigMap\n    name: d"),
			sources: []string{cm("a", "", inCluster, "a"), cm("b", "", inCluster, "b"), cm("c", "", inCluster, "c"), cm("d", "", inCluster, "d")},
			want:    "d",
			cond:    `injected resource "d" from cluster`,
		},
		"objects of another type are not candidates": {
			config:  pv("", "name: src"),
			sources: []string{strings.Replace(cm("src", "", inCluster, "x"), "apiVersion: v1", "apiVersion: example.com/v1", 1)},
			cond:    "no in-cluster resources of type v1.ConfigMap",
		},
		"no injectors": {
			config:  "apiVersion: fn.kptkit.dev/v1alpha1\nkind: InjectConfig",
			sources: []string{cm("src", "", inCluster, "x")},
			cond:    "no injectors defined",
		},
		"no selector matched": {
			config:  pv("", "name: other"),
			sources: []string{cm("src", "", inCluster, "x")},
			cond:    inject.MessageNoMatch,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			items := append([]string{kf, cm("target", "", point, "placeholder")}, tc.sources...)
			out, msgs := run(t, resourceList(tc.config, items...))
			want := "placeholder"
			if tc.want != "" {
				want = tc.want
			}
			if !strings.Contains(out, "  data:\n    v: "+want+"\n") {
				t.Errorf("want data v: %s; got:\n%s\nresults: %q", want, out, msgs)
			}
			if !strings.Contains(out, "      message: "+tc.cond+"\n") {
				t.Errorf("want condition message %q; got:\n%s", tc.cond, out)
			}
			if strings.Contains(out, inCluster) {
				t.Errorf("in-cluster items are left in the output:\n%s", out)
			}
		})
	}
}

// TestConditions checks the whole Kptfile bookkeeping: conditions per
// point, gates per required point, existing entries kept and sorted.
func TestConditions(t *testing.T) {
	t.Parallel()
	kptfile := kf + `
info:
  readinessGates:
  - conditionType: zz
  - conditionType: config.injection.ConfigMap.opt
status:
  conditions:
  - type: zz
    status: "True"
  - type: config.injection.ConfigMap.req
    status: "True"
    reason: ConfigInjected
    message: injected resource "old" from cluster`
	in := resourceList(pv("", "name: src"), kptfile,
		cm("req", "", point, "placeholder"),
		cm("opt", "", "kpt.dev/config-injection: optional", "placeholder"),
		cm("src", "", inCluster, "new"))
	out, msgs := run(t, in)
	want := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: app
    annotations:
      config.kubernetes.io/path: Kptfile
  info:
    readinessGates:
    - conditionType: config.injection.ConfigMap.opt
    - conditionType: config.injection.ConfigMap.req
    - conditionType: zz
  status:
    conditions:
    - type: config.injection.ConfigMap.opt
      status: "True"
      reason: ConfigInjected
      message: injected resource "src" from cluster
    - type: config.injection.ConfigMap.req
      status: "True"
      reason: ConfigInjected
      message: injected resource "src" from cluster
    - type: zz
      status: "True"
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: req
    annotations:
      kpt.dev/config-injection: required
      kpt.dev/injected-resource: src
  data:
    v: new
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: opt
    annotations:
      kpt.dev/config-injection: optional
      kpt.dev/injected-resource: src
  data:
    v: new
functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha1
  kind: PackageVariant
  metadata:
    name: pv
  spec:
    injectors:
    - name: src
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	wantMsgs := []string{
		`info: item 2: injected resource "src" from cluster`,
		`info: item 1: injected resource "src" from cluster`,
	}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestErrorsStopInjection checks that every invalid point is reported at
// once, sorted by file, and that nothing is then injected.
func TestErrorsStopInjection(t *testing.T) {
	t.Parallel()
	at := func(s, path string) string {
		return strings.Replace(s, "  annotations:\n", "  annotations:\n    config.kubernetes.io/path: "+path+"\n", 1)
	}
	in := resourceList(pv("", "name: src"), kf,
		at(cm("b", "", "kpt.dev/config-injection: sometimes", "placeholder"), "z.yaml"),
		at(cm("dup", "", point, "placeholder"), "c.yaml"),
		at(cm("dup", "other", point, "placeholder"), "a.yaml"),
		at(cm("ok", "", point, "placeholder"), "ok.yaml"),
		cm("src", "", inCluster, "new"))
	out, msgs := run(t, in)
	want := []string{
		`error: duplicate injection conditionType "config.injection.ConfigMap.dup" (a.yaml and c.yaml)`,
		`error: z.yaml: ConfigMap/b has invalid "kpt.dev/config-injection" annotation value of "sometimes"`,
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if strings.Contains(out, "v: new") || strings.Contains(out, "conditions:") {
		t.Errorf("something was injected despite the errors:\n%s", out)
	}
}

func TestConditionType(t *testing.T) {
	t.Parallel()
	if got, want := inject.ConditionType("WorkloadCluster", "example"), "config.injection.WorkloadCluster.example"; got != want {
		t.Errorf("ConditionType = %q, want %q", got, want)
	}
}

// TestRequestFrom checks what each config kind asks for.
func TestRequestFrom(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	tests := map[string]struct {
		config string
		want   inject.Request
		errs   []string
	}{
		"PackageVariant without namespace": {
			config: pv("", "name: a", "group: infra.nephio.org\n    version: v1alpha1\n    kind: WorkloadCluster\n    name: b"),
			want: inject.Request{Namespace: "default", Injectors: []inject.Selector{
				{Name: "a"}, {Group: str("infra.nephio.org"), Version: str("v1alpha1"), Kind: str("WorkloadCluster"), Name: "b"},
			}},
		},
		"PackageVariant in a namespace": {
			config: pv("team-a", "name: a"),
			want:   inject.Request{Namespace: "team-a", Injectors: []inject.Selector{{Name: "a"}}},
		},
		"InjectConfig defaults": {
			config: "apiVersion: fn.kptkit.dev/v1alpha1\nkind: InjectConfig\ninjectors:\n- kind: ConfigMap\n  name: a",
			want:   inject.Request{Namespace: "default", Injectors: []inject.Selector{{Kind: str("ConfigMap"), Name: "a"}}},
		},
		"empty names": {
			config: pv("", `name: ""`, "kind: ConfigMap"),
			want:   inject.Request{Namespace: "default", Injectors: []inject.Selector{{Name: ""}, {Kind: str("ConfigMap")}}},
			errs: []string{
				"functionConfig PackageVariant/pv: spec.injectors[0].name must not be empty",
				"functionConfig PackageVariant/pv: spec.injectors[1].name must not be empty",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := configOf(t, tc.config)
			got, rs := inject.RequestFrom(c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, messages(rs)); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func messages(rs []result.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Message)
	}
	return out
}

func Example() {
	in := resourceList(pv("", "name: us-east1"), kf,
		cm("endpoints", "", point, "placeholder"),
		cm("us-east1", "", inCluster, "db.us-east1.example.com"))
	out, results := krmfn.Process(inject.Function, in, krmfn.Env{})
	fmt.Print(krmtest.ItemsOf(out))
	fmt.Println(results[0].Message)
	// Output:
	// apiVersion: config.kubernetes.io/v1
	// kind: ResourceList
	// items:
	// - apiVersion: kpt.dev/v1
	//   kind: Kptfile
	//   metadata:
	//     name: app
	//     annotations:
	//       config.kubernetes.io/path: Kptfile
	//   info:
	//     readinessGates:
	//     - conditionType: config.injection.ConfigMap.endpoints
	//   status:
	//     conditions:
	//     - type: config.injection.ConfigMap.endpoints
	//       status: "True"
	//       reason: ConfigInjected
	//       message: injected resource "us-east1" from cluster
	// - apiVersion: v1
	//   kind: ConfigMap
	//   metadata:
	//     name: endpoints
	//     annotations:
	//       kpt.dev/config-injection: required
	//       kpt.dev/injected-resource: us-east1
	//   data:
	//     v: db.us-east1.example.com
	// functionConfig:
	//   apiVersion: config.porch.kpt.dev/v1alpha1
	//   kind: PackageVariant
	//   metadata:
	//     name: pv
	//   spec:
	//     injectors:
	//     - name: us-east1
	// item 1: injected resource "us-east1" from cluster
}
