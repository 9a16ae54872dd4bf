package builtinfn

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// setterLists returns, for every package tree under the folders given, a
// ResourceList of its items for each apply-setters config among them (a
// ConfigMap named for setters, as the Kptfiles' configPath entries name
// them), and for two configs that give every setter its comments name a
// value: a string, and a list.
func setterLists(t testing.TB, dirs ...string) map[string][]byte {
	t.Helper()
	lists := map[string][]byte{}
	for _, dir := range dirs {
		files, err := kptpkg.Read(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		items, err := files.Resources("", true)
		if err != nil {
			t.Logf("%s: %v", dir, err) // an example that is not a kpt package
			continue
		}
		var cfgs []*yaml.RNode
		for _, n := range items {
			if n.GetKind() == "ConfigMap" && strings.Contains(n.GetName(), "setters") {
				cfgs = append(cfgs, n)
			}
		}
		names := setterNames(items)
		for _, value := range []string{"v-%s", "[%s-a, b]"} {
			data := map[string]string{}
			for _, name := range names {
				data[name] = fmt.Sprintf(value, name)
			}
			fc := yaml.NewMapRNode(&map[string]string{"apiVersion": "v1", "kind": "ConfigMap"})
			fc.SetDataMap(data)
			cfgs = append(cfgs, fc)
		}
		for i, fc := range cfgs {
			if lists[fmt.Sprintf("%s (config %d)", dir, i)], err = render.EncodeList(items, fc, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	return lists
}

var setterName = regexp.MustCompile(`\$\{([^}]*)\}`)

// setterNames are the setters the items' comments name, sorted.
func setterNames(items []*yaml.RNode) []string {
	var names []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if c, ok := strings.CutPrefix(n.LineComment, "# kpt-set: "); ok {
			for _, m := range setterName.FindAllStringSubmatch(c, -1) {
				names = append(names, m[1])
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	for _, n := range items {
		walk(n.YNode())
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// sameAsFramework fails unless apply-setters on kptkit's nodes gives in's
// output, error (the exit code and stderr are made of it) and panic as the
// catalog's processor under executeFramework (held to kyaml's
// framework.Execute by TestExecuteFrameworkCorpus).
func sameAsFramework(t testing.TB, name string, in []byte) {
	t.Helper()
	want, werr, wp := catch(func() ([]byte, error) { return executeFramework(ApplySetters, in) })
	got, gerr, gp := catch(func() ([]byte, error) { return applySettersDirect(in) })
	if !bytes.Equal(got, want) || fmt.Sprint(gerr) != fmt.Sprint(werr) || fmt.Sprint(gp) != fmt.Sprint(wp) {
		t.Errorf("apply-setters on %s: differs from the framework's path (errors %v, %v; panics %v, %v)\n%s", name, gerr, werr, gp, wp, cmp.Diff(string(want), string(got)))
	}
}

// TestApplySettersCorpus: apply-setters on kptkit's nodes gives, for every
// package of the Nephio catalog and every example, with each setters
// ConfigMap among its items and with values for all its setters, the bytes
// and error of the framework's path.
func TestApplySettersCorpus(t *testing.T) {
	t.Parallel()
	dirs := examplePackages(t)
	if len(dirs) < 10 {
		t.Fatalf("%d example packages", len(dirs))
	}
	lists := setterLists(t, append(dirs, corpus.Packages(t)...)...)
	changed := 0
	for name, in := range lists {
		sameAsFramework(t, name, in)
		if out, _ := applySettersDirect(in); bytes.Contains(out, []byte("message: set field value to")) {
			changed++
		}
	}
	t.Logf("%d lists, %d with a setter set", len(lists), changed)
	// the corpus's setters are set (not only "no matches")
	if changed < 20 {
		t.Errorf("%d of %d lists had a setter set", changed, len(lists))
	}
}

// TestSettled: the lists whose annotation migration kptkit skips.
func TestSettled(t *testing.T) {
	t.Parallel()
	const both = "    config.kubernetes.io/path: 'a.yaml'\n    internal.config.kubernetes.io/path: 'a.yaml'\n"
	for _, tc := range []struct {
		name string
		meta string
		want bool
	}{
		{"both forms", "metadata:\n  annotations:\n" + both, true},
		{"both forms, flow", "metadata: {annotations: {config.kubernetes.io/path: a.yaml, internal.config.kubernetes.io/path: a.yaml, x: y}}\n", true},
		{"no path, other annotations", "metadata:\n  annotations:\n    x: y\n", true},
		{"no metadata", "spec: {}\n", false},
		{"no annotations", "metadata:\n  name: n\n", false},
		{"empty annotations", "metadata:\n  annotations: {}\n", false},
		{"null annotations", "metadata:\n  annotations:\n", false},
		{"legacy only", "metadata:\n  annotations:\n    config.kubernetes.io/path: 'a.yaml'\n", false},
		{"internal only", "metadata:\n  annotations:\n    internal.config.kubernetes.io/path: 'a.yaml'\n", false},
		{"mismatched", "metadata:\n  annotations:\n    config.kubernetes.io/path: a.yaml\n    internal.config.kubernetes.io/path: b.yaml\n", false},
		{"empty values", "metadata:\n  annotations:\n    config.kubernetes.io/path: ''\n    internal.config.kubernetes.io/path: ''\n", false},
		{"a setter on the path", "metadata:\n  annotations:\n    config.kubernetes.io/path: a.yaml # kpt-set: ${p}\n    internal.config.kubernetes.io/path: a.yaml\n", false},
		{"twice", "metadata:\n  annotations:\n" + both + "    config.kubernetes.io/path: 'a.yaml'\n", false},
		{"two metadata", "metadata:\n  annotations:\n" + both + "metadata: {}\n", false},
		{"the migration's id", "metadata:\n  annotations:\n" + both + "    internal.config.kubernetes.io/annotations-migration-resource-id: '0'\n", false},
		{"an alias", "metadata:\n  annotations: &a\n" + both + "spec: {x: *a}\n", false},
	} {
		items, err := render.ReadList([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + strings.ReplaceAll("kind: A\n"+tc.meta, "\n", "\n  ")))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := settled(items.Items); got != tc.want {
			t.Errorf("%s: settled %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestResultsNode: the results the emitter writes (as yaml.v3 writes what
// its marshaller gives), and those left to the marshaller.
func TestResultsNode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, message, path string
		want                string // "" for none
	}{
		{"set", `set field value to "5"`, "a/b.yaml", "results:\n- message: set field value to \"5\"\n  field:\n    path: spec.x\n  file:\n    path: a/b.yaml\n"},
		{"no path", "set field value to 'x: y'", "", "results:\n- message: 'set field value to ''x: y'''\n  field:\n    path: spec.x\n  file: {}\n"},
		{"a YAML 1.1 boolean", `set field value to "5"`, "on", ""},
		{"a number", `set field value to "5"`, "1.5", ""},
		{"a dot", `set field value to "5"`, ".x", ""},
		{"not ASCII", "set field value to \"é\"", "a.yaml", ""},
	} {
		rs := framework.Results{{Message: tc.message, Field: &framework.Field{Path: "spec.x"}, File: &framework.File{Path: tc.path}}}
		n, ok := resultsNode(rs)
		var b bytes.Buffer
		if ok {
			ok = resourcelist.Emit(&b, n)
		}
		if got := b.String(); got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: wrote %q (%v), want %q", tc.name, got, ok, tc.want)
		}
		if !ok {
			continue
		}
		// the framework's way: marshalled, parsed, encoded
		results, err := marshalResults(rs, nil)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := render.EncodeList(nil, nil, results)
		if err != nil {
			t.Fatal(err)
		}
		if _, ref, _ := strings.Cut(string(ref), "items: []\n"); ref != b.String() {
			t.Errorf("%s: the framework writes %q", tc.name, ref)
		}
	}
}

// FuzzApplySetters: apply-setters on kptkit's nodes gives what the
// catalog's processor gives on the framework's path, for any ResourceList
// (but those where a value or a setter's name holds "${" or a brace: the
// catalog replaces the setters in map order, and such a value is then read
// one way or another).
func FuzzApplySetters(f *testing.F) {
	f.Add(settersPackage(2))
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	const cfg = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: s}\n  data:\n    image: nginx\n    tag: '1.2'\n    envs: '[dev, prod]'\n    empty: ''\n"
	const annos = "    annotations:\n      config.kubernetes.io/path: 'a.yaml'\n      internal.config.kubernetes.io/path: 'a.yaml'\n"
	for _, items := range []string{
		"items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n" + annos + "  data:\n    image: x:1 # kpt-set: ${image}:${tag}\n    other: y # kpt-set: ${other}\n",
		"items:\n- kind: Pod\n  metadata:\n    name: p # kpt-set: ${image}\n" + annos + "  spec:\n    envs: # kpt-set: ${envs}\n    - a\n    flow: [a] # kpt-set: ${envs}\n    none: # kpt-set: ${empty}\n    - x\n",
		"items:\n- kind: Pod\n  metadata:\n    name: p\n" + annos + "  spec:\n    envs: # kpt-set: ${image}\n    - a\n",
		"items:\n- kind: Pod\n  metadata:\n    name: p\n    annotations:\n      config.kubernetes.io/path: 'on' # kpt-set: ${tag}\n      internal.config.kubernetes.io/path: 'on'\n  spec: {x: a # kpt-set: ${nope}\n}\n",
		"items:\n- kind: Pod\n  metadata:\n    annotations:\n      config.kubernetes.io/path: 'b.yaml'\n  spec:\n    x: y # kpt-set: ${image}-${unknown}\n",
		"items:\n- kind: Pod\n  spec:\n    x: y # kpt-set: ${image}\n- kind: Pod\n  metadata: {annotations: {}}\n",
		"items:\n- kind: Pod\n  metadata:\n    name: p\n" + annos + "  spec:\n    host: nginx-7.example # kpt-set: ${image}-${n}.${domain}\n    list: # kpt-set: ${envs}-x\n    - a\n",
		"items:\n- kind: Pod\n  metadata:\n    name: p\n" + annos + "  spec:\n    host: a-7.example # kpt-set: ${image}-${n}.${domain}\n    partial: x # kpt-set: ${image}-${n}\n",
		"items:\n- kind: Pod\n  metadata:\n    name: p\n" + annos + "  spec:\n    m:\n    - - a # kpt-set: ${tag}\n      - {b: c # kpt-set: ${image}\n        }\n    x: 1 # kpt-set: ${tag}\n    x: 2 # kpt-set: ${image}\n",
		"items:\n- &a\n  kind: Pod\n  metadata:\n    name: p\n" + annos + "  spec:\n    x: &v y # kpt-set: ${image}\n    z: *v\n",
		"items:\n- kind: Pod\n  metadata:\n    name: p\n" + annos + "  spec:\n" + manyKeys(20) + "    k3: a # kpt-set: ${image}\n",
	} {
		f.Add([]byte(head + items + cfg))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if namesSetter(in) {
			t.Skip("a value names a setter")
		}
		sameAsFramework(t, "input", in)
	})
}

// manyKeys is a mapping's n fields, k0 to k(n-1), each with a setter.
func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "    k%d: v # kpt-set: ${tag}\n", i)
	}
	return b.String()
}

// namesSetter: a value of the list, or a setter's name, that the catalog
// may read one way or another (conservative: any "${" in a scalar, any
// brace or "$" in a key of the config's data).
func namesSetter(in []byte) bool {
	l, err := render.ReadList(in)
	if err != nil {
		return false
	}
	var walk func(n *yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		return strings.Contains(n.Value, "${") || slices.ContainsFunc(n.Content, walk)
	}
	if slices.ContainsFunc(l.Items, func(n *yaml.RNode) bool { return walk(n.YNode()) }) {
		return true
	}
	if l.FunctionConfig == nil {
		return false
	}
	if data := l.FunctionConfig.Field("data"); data != nil {
		for i := 0; i < len(data.Value.Content()); i += 2 {
			if strings.ContainsAny(data.Value.Content()[i].Value, "${}") {
				return true
			}
		}
	}
	return walk(l.FunctionConfig.YNode())
}
