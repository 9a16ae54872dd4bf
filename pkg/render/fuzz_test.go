package render_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/render"
)

// FuzzParsePipeline: any Kptfile gives entries and problems, never a panic;
// every entry without a problem has an image or an exec.
func FuzzParsePipeline(f *testing.F) {
	for _, s := range []string{
		pipeline("a", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: root}\n"),
		pipeline("a", "  - exec: ../fn --x 'a b'\n    selectors: [{kind: ConfigMap, labels: {a: b}}]\n    exclude: [{}]\n"),
		pipeline("a", "  - image: set-namespace:v0.4.1\n    tag: ~0.4\n    configPath: cfg.yaml\n"),
		pipeline("a", "  - image: x\n    config: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n"),
		"apiVersion: kpt.dev/v1\nkind: Kptfile\npipeline: [1, 2]\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\npipeline:\n  validators:\n  - {image: &a x, exec: *a}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kf, err := yaml.Parse(s)
		if err != nil || kf.YNode().Kind != yaml.MappingNode {
			return
		}
		fns, problems := render.ParsePipeline("", kf, func(string) error { return nil })
		if len(problems) > 0 {
			return
		}
		for _, fn := range fns {
			if (fn.Image == "") == (fn.Exec == "") {
				t.Errorf("entry %s has no problem but image %q and exec %q", fn.Field(), fn.Image, fn.Exec)
			}
		}
	})
}

// FuzzSelect: selection never panics, keeps the items' order, and an item
// is selected exactly when a selector matches it (or there is none) and no
// non-empty exclusion does.
func FuzzSelect(f *testing.F) {
	f.Add("kind: ConfigMap", "name: b", cm("a")+"---\n"+cm("b", "  namespace: n\n  labels: {x: y}\n"))
	f.Add("labels: {x: y}", "{}", cm("a", "  labels: {x: y}\n  annotations: {p: q}\n"))
	f.Add("annotations: {p: q}", "namespace: n", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n}\n")
	f.Fuzz(func(t *testing.T, sel, excl, docs string) {
		var s, e render.Selector
		if yaml.Unmarshal([]byte(sel), &s) != nil || yaml.Unmarshal([]byte(excl), &e) != nil {
			return
		}
		items, err := kptpkg.Items("a.yaml", []byte(docs))
		if err != nil {
			return
		}
		got := render.Select(items, []render.Selector{s}, []render.Selector{e})
		j := 0
		for _, n := range items {
			want := s.Match(n) && (e.IsEmpty() || !e.Match(n))
			if want {
				if j >= len(got) || got[j] != n {
					t.Fatalf("item %s/%s should be selected, in order", n.GetKind(), n.GetName())
				}
				j++
			}
		}
		if j != len(got) {
			t.Fatalf("%d items selected, want %d", len(got), j)
		}
	})
}

// FuzzRender: any package renders or fails with a reason, never panics;
// files come out exactly when there is no failure.
func FuzzRender(f *testing.F) {
	f.Add(pipeline("root", "  - image: ghcr.io/kptkit/mark\n    selectors: [{kind: ConfigMap}]\n"), cm("a"), "sub")
	f.Add(pipeline("root", "  - image: ghcr.io/kptkit/drop\n"), cm("a")+"---\n"+cm("b"), "x/y")
	f.Add(pipeline("root", "  - image: ghcr.io/kptkit/config\n    configPath: a.yaml\n"), cm("a", "data: {value: v}\n"), "")
	f.Add(pipeline("root", "  - image: ghcr.io/kptkit/escape\n"), "- a\n- b\n", "../up")
	rt := render.Functions{Functions: testFunctions}
	f.Fuzz(func(t *testing.T, kptfile, docs, sub string) {
		files := kptpkg.Files{"Kptfile": []byte(kptfile), "a.yaml": []byte(docs)}
		if kptpkg.CheckPath("sub", sub) == nil {
			files[sub+"/Kptfile"] = []byte(kptfile)
			files[sub+"/b.yaml"] = []byte(docs)
		}
		out := render.Render(render.Input{Files: files}, render.Options{Runtime: rt})
		if (out.Failure == nil) != (out.Files != nil) {
			t.Fatalf("failure %v with files %v", out.Failure, out.Files != nil)
		}
		if out.Failure != nil && out.Failure.Error() == "" {
			t.Fatal("a failure without a message")
		}
	})
}
