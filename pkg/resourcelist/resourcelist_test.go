package resourcelist_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// odd is a ResourceList whose items carry everything a re-encoding would
// lose or change: comments in every place, quoting styles, flow style, wide
// sequence indentation, block scalars, trailing spaces and hex numbers.
const odd = `# leading comment
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
# above the first item
- # on the dash line of the first item
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: 'first'   # single quoted
    annotations: {config.kubernetes.io/path: "cm.yaml", enabled: yes}
  data:
    hex: 0x1F
    script: |
      echo "hi"
        indented
# between the items
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: "second"
  spec:
    template:
      spec:
        containers:
            - name: web
              args: [ "--a",    '--b' ]
- apiVersion: v1
  kind: Service
  metadata: {name: third}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: function-input}
  data: {a: "yes"}
`

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		do   func(t *testing.T, rl *resourcelist.ResourceList)
		want string
	}{{
		name: "untouched input comes out byte-identical",
		in:   odd,
		do:   func(*testing.T, *resourcelist.ResourceList) {},
		want: odd,
	}, {
		name: "edited but unchanged items come out byte-identical",
		in:   odd,
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			for _, it := range rl.Select(all) {
				n := it.Edit()
				setString(t, n, "metadata.name", it.Header().Name)
			}
		},
		want: odd,
	}, {
		name: "a changed item is encoded anew, its neighbours are not",
		in:   odd,
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			setString(t, byName(t, rl, "second").Edit(), "spec.replicas", "on")
		},
		want: strings.Replace(odd, `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: "second"
  spec:
    template:
      spec:
        containers:
            - name: web
              args: [ "--a",    '--b' ]
`, `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: "second"
  spec:
    template:
      spec:
        containers:
        - name: web
          args: ["--a", '--b']
    replicas: "on"
`, 1),
	}, {
		name: "changing the first item keeps the comments on its dash line and above the next",
		in:   odd,
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			setString(t, byName(t, rl, "first").Edit(), "data.new", "1")
		},
		want: strings.Replace(odd, `    name: 'first'   # single quoted
    annotations: {config.kubernetes.io/path: "cm.yaml", enabled: yes}
  data:
    hex: 0x1F
    script: |
      echo "hi"
        indented
`, `    name: 'first' # single quoted
    annotations: {config.kubernetes.io/path: "cm.yaml", enabled: "yes"}
  data:
    hex: 0x1F
    script: |
      echo "hi"
        indented
    new: "1"
`, 1),
	}, {
		name: "changing two neighbours keeps the comment between them once",
		in:   odd,
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			setString(t, byName(t, rl, "first").Edit(), "data.hex", "0x20")
			setString(t, byName(t, rl, "second").Edit(), "metadata.name", "2nd")
		},
		want: strings.NewReplacer(
			"    hex: 0x1F\n", "    hex: \"0x20\"\n",
			`    name: 'first'   # single quoted`, `    name: 'first' # single quoted`,
			`enabled: yes}`, `enabled: "yes"}`,
			`    name: "second"`, `    name: "2nd"`,
			"            - name: web\n              args: [ \"--a\",    '--b' ]\n", "        - name: web\n          args: [\"--a\", '--b']\n",
		).Replace(odd),
	}, {
		name: "deleting an item keeps the comment above the next one",
		in:   odd,
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			rl.Delete(byName(t, rl, "first"))
		},
		want: strings.Replace(odd, odd[strings.Index(odd, "- # on the dash"):strings.Index(odd, "# between")], "", 1),
	}, {
		name: "deleting the last item",
		in:   odd,
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			rl.Delete(byName(t, rl, "third"))
		},
		want: strings.Replace(odd, "- apiVersion: v1\n  kind: Service\n  metadata: {name: third}\n", "", 1),
	}, {
		name: "new items are appended, with strings YAML 1.1 would misread quoted",
		in:   odd,
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			n := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
			setString(t, n, "apiVersion", "v1")
			setString(t, n, "kind", "ConfigMap")
			setString(t, n, "metadata.name", "new")
			for i, v := range []string{"yes", "on", "1", "0x1F", "1.5", "~", "null", "plain"} {
				setString(t, n, fmt.Sprintf("data.k%d", i), v)
			}
			setString(t, n, "data.no", "n")
			if _, err := rl.Append(n, "new.yaml"); err != nil {
				t.Fatal(err)
			}
		},
		want: strings.Replace(odd, "functionConfig:", `- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: new
    annotations:
      config.kubernetes.io/path: 'new.yaml'
  data:
    k0: "yes"
    k1: "on"
    k2: "1"
    k3: "0x1F"
    k4: "1.5"
    k5: "~"
    k6: "null"
    k7: plain
    "no": "n"
functionConfig:`, 1),
	}, {
		name: "wide sequence indentation is kept for new and changed items",
		in:   "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: A\n    metadata:\n      name: a\n",
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			setString(t, byName(t, rl, "a").Edit(), "spec.x", "z")
		},
		want: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: A\n    metadata:\n      name: a\n    spec:\n      x: z\n",
	}, {
		name: "results follow the items, existing ones first",
		in:   "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n- message: earlier\n  severity: info\n",
		do: func(_ *testing.T, rl *resourcelist.ResourceList) {
			rl.AddResults(result.Warningf("b"), result.Errorf("a").WithFile("x.yaml", 1))
		},
		want: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n- message: earlier\n  severity: info\n- message: a\n  severity: error\n  file:\n    path: x.yaml\n    index: 1\n- message: b\n  severity: warning\n",
	}, {
		name: "no items key: one is written",
		in:   "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n",
		do:   func(*testing.T, *resourcelist.ResourceList) {},
		want: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
	}, {
		name: "JSON comes out as block YAML",
		in:   `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"apiVersion":"v1","kind":"A","metadata":{"name":"a"},"data":{"n":"1"}}]}`,
		do:   func(*testing.T, *resourcelist.ResourceList) {},
		want: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n  data:\n    \"n\": \"1\"\n",
	}, {
		name: "CRLF line endings of untouched items are kept",
		in:   "apiVersion: config.kubernetes.io/v1\r\nkind: ResourceList\r\nitems:\r\n- apiVersion: v1\r\n  kind: A\r\n  metadata:\r\n    name: a\r\n- apiVersion: v1\r\n  kind: B\r\n  metadata:\r\n    name: b\r\n",
		do: func(t *testing.T, rl *resourcelist.ResourceList) {
			rl.Delete(byName(t, rl, "b"))
		},
		want: "apiVersion: config.kubernetes.io/v1\r\nkind: ResourceList\r\nitems:\r\n- apiVersion: v1\r\n  kind: A\r\n  metadata:\r\n    name: a\r\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rl, err := resourcelist.Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			tc.do(t, rl)
			got, err := rl.Write()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Write() mismatch (-want +got):\n%s", diff)
			}
			if _, err := resourcelist.Parse(got); err != nil {
				t.Errorf("output does not parse: %v", err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", "the input is empty: expected a ResourceList"},
		{"not yaml", "items: [", "cannot parse the input as YAML: yaml: line 1: did not find expected node content"},
		{"bare resource", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n",
			`the input is not a ResourceList: got apiVersion "apps/v1" kind "Deployment", expected apiVersion "config.kubernetes.io/v1" kind "ResourceList"`},
		{"a list", "- a\n- b\n", "the input is not a ResourceList: expected a mapping with kind ResourceList"},
		{"two documents", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n---\na: b\n", "the input holds more than one YAML document: expected a single ResourceList"},
		{"items not a list", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {a: b}\n", "the ResourceList's items is not a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := resourcelist.Parse([]byte(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Parse() error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	t.Parallel()
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: infra.nephio.org/v1alpha1
  kind: WorkloadCluster
  metadata:
    name: edge01
    namespace: clusters
    labels: {region: eu}
    annotations:
      config.kubernetes.io/path: 'legacy.yaml'
      internal.config.kubernetes.io/path: 'clusters/edge01.yaml'
      internal.config.kubernetes.io/index: '2'
      kptkit.dev/in-cluster: "true"
- kind: Kptfile
  apiVersion: kpt.dev/v1
  metadata: {name: root}
- 42
`
	rl, err := resourcelist.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []resourcelist.Header
	for _, it := range rl.Select(all) {
		got = append(got, it.Header())
	}
	want := []resourcelist.Header{{
		APIVersion: "infra.nephio.org/v1alpha1", Kind: "WorkloadCluster", Name: "edge01", Namespace: "clusters",
		Labels: map[string]string{"region": "eu"},
		Annotations: map[string]string{
			"config.kubernetes.io/path": "legacy.yaml", "internal.config.kubernetes.io/path": "clusters/edge01.yaml",
			"internal.config.kubernetes.io/index": "2", "kptkit.dev/in-cluster": "true",
		},
		Path: "clusters/edge01.yaml", Index: 2, Position: 0,
	}, {
		APIVersion: "kpt.dev/v1", Kind: "Kptfile", Name: "root", Position: 1,
	}, {
		Position: 2,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers mismatch (-want +got):\n%s", diff)
	}
	h := got[0]
	if !h.InCluster() || h.LocalConfig() || h.Group() != "infra.nephio.org" || h.Version() != "v1alpha1" ||
		h.String() != "WorkloadCluster/clusters/edge01" || h.Where() != "clusters/edge01.yaml" {
		t.Errorf("header methods of %+v are wrong", h)
	}
	if k := got[1]; !k.IsRootKptfile() || k.Group() != "kpt.dev" || k.Where() != "item 1" {
		t.Errorf("Kptfile header %+v: IsRootKptfile=%v Where=%q", k, k.IsRootKptfile(), k.Where())
	}
	if s := got[2].String(); s != "item at position 2" {
		t.Errorf("String() of a nameless item = %q", s)
	}
}

func all(resourcelist.Header) bool { return true }

func byName(t *testing.T, rl *resourcelist.ResourceList, name string) *resourcelist.Item {
	t.Helper()
	its := rl.Select(func(h resourcelist.Header) bool { return h.Name == name })
	if len(its) != 1 {
		t.Fatalf("want one item named %q, got %d", name, len(its))
	}
	return its[0]
}

func setString(t *testing.T, n *yaml.RNode, path, v string) {
	t.Helper()
	if err := fieldpath.SetString(n, fieldpath.Parse(path), v); err != nil {
		t.Fatal(err)
	}
}
