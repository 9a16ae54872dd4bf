package render_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// The test functions, run by image ghcr.io/kptkit/<name>.
var (
	// mark annotates every item with who saw it and under which path.
	mark = krmfn.Function{Name: "mark", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		who := "mark"
		if cfg := krmfn.ConfigOf(rl); cfg != nil {
			if v := cfg.Node.Field("data"); v != nil {
				if w := v.Value.Field("who"); w != nil {
					who = w.Value.YNode().Value
				}
			}
		}
		for _, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
			h := it.Header()
			if h.IsKptfile() {
				continue
			}
			if err := it.Edit().PipeE(yaml.SetAnnotation("seen-by-"+who, h.Path)); err != nil {
				return err
			}
		}
		return nil
	}}
	// drop deletes the ConfigMaps it is given and adds one.
	drop = krmfn.Function{Name: "drop", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		for _, it := range rl.Select(func(h resourcelist.Header) bool { return h.Kind == "ConfigMap" }) {
			rl.Delete(it)
		}
		n, err := yaml.Parse("apiVersion: v1\nkind: Secret\nmetadata:\n  name: made\n")
		if err != nil {
			return err
		}
		_, err = rl.Append(n, "")
		return err
	}}
	// fail reports an error on its first item.
	fail = krmfn.Function{Name: "fail", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		rl.AddResults(result.Errorf("no good"))
		return nil
	}}
	// escape moves every item out of the package.
	escape = krmfn.Function{Name: "escape", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		for _, it := range rl.Select(func(h resourcelist.Header) bool { return !h.IsKptfile() }) {
			if err := it.Edit().PipeE(yaml.SetAnnotation("internal.config.kubernetes.io/path", "../x.yaml")); err != nil {
				return err
			}
		}
		return nil
	}}
	// config copies its functionConfig's data.value into every ConfigMap.
	config = krmfn.Function{Name: "config", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		cfg := krmfn.ConfigOf(rl)
		if cfg == nil {
			return fmt.Errorf("no config")
		}
		v := cfg.Node.Field("data").Value.Field("value").Value.YNode().Value
		for _, it := range rl.Select(func(h resourcelist.Header) bool { return h.Kind == "ConfigMap" && h.Name != "cfg" }) {
			if err := it.Edit().PipeE(yaml.SetField("value", yaml.NewStringRNode(v))); err != nil {
				return err
			}
		}
		for _, it := range rl.Select(func(h resourcelist.Header) bool { return h.Name == "cfg" }) {
			if err := it.Edit().PipeE(yaml.Lookup("data"), yaml.SetField("value", yaml.NewStringRNode(v+"+"))); err != nil {
				return err
			}
		}
		return nil
	}}
	testFunctions = []krmfn.Function{mark, drop, fail, escape, config}
)

// bytesOnly runs a kptkit function from bytes, as a function binary would:
// the same functions through kpt's serialising path.
type bytesOnly struct{ render.Functions }

func (b bytesOnly) Runner(fn render.Function) (render.Runner, error) {
	r, err := b.Functions.Runner(fn)
	if err != nil {
		return nil, err
	}
	return binary{r.(render.InProcess)}, nil
}

type binary struct{ p render.InProcess }

func (b binary) Run(in []byte) ([]byte, render.Exit, error) { return b.p.Run(in) }

const kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: %s\n"

func pipeline(name string, mutators ...string) string {
	s := fmt.Sprintf(kptfile, name)
	if len(mutators) > 0 {
		s += "pipeline:\n  mutators:\n" + strings.Join(mutators, "")
	}
	return s
}

func cm(name string, extra ...string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" + strings.Join(extra, "")
}

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      kptpkg.Files
		exec    bool
		want    kptpkg.Files // nil: a failure
		failure string
		steps   int
	}{{
		name: "subpackages first, each on its own items with its own paths, then the parent on all",
		in: kptpkg.Files{
			"Kptfile":          []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: root}\n")),
			"a.yaml":           []byte(cm("a")),
			"sub/Kptfile":      []byte(pipeline("sub", "  - image: ghcr.io/kptkit/mark:v1\n    configMap: {who: sub}\n")),
			"sub/x/b.yaml":     []byte(cm("b")),
			"sub2/Kptfile":     []byte(pipeline("sub2")),
			"sub2/c.yaml":      []byte("# keep me\n" + cm("c")),
			"README.md":        []byte("not a resource\n"),
			"sub/.krmignore":   []byte("ignored.yaml\n"),
			"sub/ignored.yaml": []byte("not: [a resource\n"),
		},
		want: kptpkg.Files{
			"Kptfile":          []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: root}\n")),
			"a.yaml":           []byte(cm("a", "  annotations:\n    seen-by-root: 'a.yaml'\n")),
			"sub/Kptfile":      []byte(pipeline("sub", "  - image: ghcr.io/kptkit/mark:v1\n    configMap: {who: sub}\n")),
			"sub/x/b.yaml":     []byte(cm("b", "  annotations:\n    seen-by-sub: 'x/b.yaml'\n    seen-by-root: 'x/b.yaml'\n")),
			"sub2/Kptfile":     []byte(pipeline("sub2")),
			"sub2/c.yaml":      []byte("# keep me\n" + cm("c", "  annotations:\n    seen-by-root: 'c.yaml'\n")),
			"README.md":        []byte("not a resource\n"),
			"sub/.krmignore":   []byte("ignored.yaml\n"),
			"sub/ignored.yaml": []byte("not: [a resource\n"),
		},
		steps: 2,
	}, {
		name: "selectors pick, exclusions leave out, the output is merged back in place, new items go last",
		in: kptpkg.Files{
			"Kptfile": []byte(pipeline("root",
				"  - image: ghcr.io/kptkit/drop\n    selectors:\n    - kind: ConfigMap\n    exclude:\n    - name: kept\n    - {}\n")),
			"a.yaml": []byte(cm("first") + "---\n" + cm("kept") + "---\n" + cm("third")),
		},
		want: kptpkg.Files{
			"Kptfile":          []byte(pipeline("root", "  - image: ghcr.io/kptkit/drop\n    selectors:\n    - kind: ConfigMap\n    exclude:\n    - name: kept\n    - {}\n")),
			"a.yaml":           []byte(cm("kept")),
			"secret_made.yaml": []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: made\n"),
		},
		steps: 1,
	}, {
		name: "a configPath config is read from the items, as an earlier step left it",
		in: kptpkg.Files{
			"Kptfile": []byte(pipeline("root",
				"  - image: ghcr.io/kptkit/config\n    configPath: cfg.yaml\n",
				"  - image: ghcr.io/kptkit/config\n    configPath: cfg.yaml\n")),
			"cfg.yaml": []byte(cm("cfg", "data:\n  value: v\n")),
			"a.yaml":   []byte(cm("a")),
		},
		want: kptpkg.Files{
			"Kptfile": []byte(pipeline("root",
				"  - image: ghcr.io/kptkit/config\n    configPath: cfg.yaml\n",
				"  - image: ghcr.io/kptkit/config\n    configPath: cfg.yaml\n")),
			"cfg.yaml": []byte(cm("cfg", "data:\n  value: v++\n")),
			"a.yaml":   []byte(cm("a", "value: v+\n")),
		},
		steps: 2,
	}, {
		name: "a failing step writes nothing",
		in: kptpkg.Files{
			"Kptfile": []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n", "  - image: ghcr.io/kptkit/fail\n")),
			"a.yaml":  []byte(cm("a")),
		},
		failure: "ghcr.io/kptkit/fail (pipeline.mutators[1]) failed: no good",
		steps:   1,
	}, {
		name: "an item whose path leaves the package is an error",
		in: kptpkg.Files{
			"Kptfile": []byte(pipeline("root", "  - image: ghcr.io/kptkit/escape\n")),
			"a.yaml":  []byte(cm("a")),
		},
		failure: "ghcr.io/kptkit/escape (pipeline.mutators[0]) failed: function must not modify resources outside of package: resource has path ../x.yaml",
	}, {
		name: "exec needs AllowExec",
		in: kptpkg.Files{
			"Kptfile": []byte(pipeline("root", "  - exec: ./fn\n")),
		},
		failure: "./fn (pipeline.mutators[0]) failed: must run with `--allow-exec` option to allow running function binaries",
	}, {
		name: "an image no runtime has fails when it runs, after the steps before it",
		in: kptpkg.Files{
			"Kptfile": []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n", "  - image: example.com/other:v1\n")),
		},
		failure: "example.com/other:v1 (pipeline.mutators[1]) failed: no runtime runs example.com/other:v1",
		steps:   1,
	}, {
		name: "every mistake in every Kptfile at once",
		in: kptpkg.Files{
			"Kptfile": []byte(pipeline("root",
				"  - image: ghcr.io/kptkit/mark\n    exec: ./x\n",
				"  - configPath: missing.yaml\n    image: ghcr.io/kptkit/mark\n",
				"  - image: bad image!\n    configMap: {a: b}\n    configPath: ../x.yaml\n")),
			"sub/Kptfile": []byte(pipeline("sub", "  - image: ghcr.io/kptkit/mark\n    nope: 1\n")),
		},
		failure: "Kptfile is invalid: field pipeline.mutators[0]: must not specify both `image` and `exec` at the same time\n" +
			"Kptfile is invalid: field pipeline.mutators[1].configPath (\"missing.yaml\"): functionConfig must exist in the current package\n" +
			"Kptfile is invalid: field pipeline.mutators[2].image (\"bad image!\"): function name \"bad image!\" is invalid\n" +
			"Kptfile is invalid: field pipeline.mutators[2]: functionConfig must not specify more than one of `configMap`, `configPath` and `config` at the same time\n" +
			"Kptfile is invalid: field pipeline.mutators[2].configPath (\"../x.yaml\"): path must not be outside the package\n" +
			"sub/Kptfile is invalid: field pipeline.mutators[0].nope: unknown field \"nope\"",
	}}
	for _, tt := range tests {
		for _, bytesPath := range []bool{false, true} {
			name := tt.name
			if bytesPath {
				name += " (through bytes)"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var rt render.Runtime = render.Functions{Functions: testFunctions}
				if bytesPath {
					rt = bytesOnly{render.Functions{Functions: testFunctions}}
				}
				out := render.Render(render.Input{Files: tt.in}, render.Options{Runtime: rt})
				var failure string
				if out.Failure != nil {
					failure = out.Failure.Error()
				}
				if failure != tt.failure {
					t.Errorf("failure:\n got %s\nwant %s", failure, tt.failure)
				}
				if diff := cmp.Diff(strs(tt.want), strs(out.Files)); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
				if out.Executed != tt.steps {
					t.Errorf("executed %d steps, want %d", out.Executed, tt.steps)
				}
				if (tt.want == nil) != (out.Items == nil) {
					t.Errorf("items %v, want them only on success", out.Items)
				}
			})
		}
	}
}

func strs(f kptpkg.Files) map[string]string {
	if f == nil {
		return nil
	}
	m := map[string]string{}
	for p, b := range f {
		m[p] = string(b)
	}
	return m
}

// TestRenderResults: the results are kpt's, in its file format.
func TestRenderResults(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"Kptfile": []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n", "  - image: ghcr.io/kptkit/fail\n")),
		"a.yaml":  []byte(cm("a")),
	}
	out := render.Render(render.Input{Files: in}, render.Options{Runtime: render.Functions{Functions: testFunctions}})
	got, err := out.Results.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kpt.dev/v1
kind: FunctionResultList
metadata:
  name: fnresults
exitCode: 1
items:
  - image: ghcr.io/kptkit/mark
    exitCode: 0
  - image: ghcr.io/kptkit/fail
    stderr: |
      fail: error: no good
    exitCode: 1
    results:
      - message: no good
        severity: error
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("results.yaml (-want +got):\n%s", diff)
	}
	wantFailure := &render.Failure{Image: "ghcr.io/kptkit/fail", List: "mutators", Index: 1, Message: "no good"}
	if diff := cmp.Diff(wantFailure, out.Failure); diff != "" {
		t.Errorf("failure (-want +got):\n%s", diff)
	}
}

// TestRenderProgress: Progress hears of packages and steps in order.
func TestRenderProgress(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"Kptfile":     []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n    selectors: [{kind: ConfigMap}]\n")),
		"sub/Kptfile": []byte(pipeline("sub")),
		"a.yaml":      []byte(cm("a")),
	}
	var got []string
	clock := time.Unix(0, 0)
	env := krmfn.Env{Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
	render.Render(render.Input{Files: in}, render.Options{Runtime: render.Functions{Functions: testFunctions}, Env: env, Path: "/work/pkg",
		Progress: func(e render.Event) {
			s := e.Package
			if e.Function != nil {
				s += " " + e.Function.String()
			}
			got = append(got, fmt.Sprintf("%s end=%v count=%d took=%v", s, e.End, e.Count, e.Duration))
		}})
	want := []string{
		"pkg/sub end=false count=0 took=0s",
		"pkg end=false count=0 took=0s",
		"pkg ghcr.io/kptkit/mark end=false count=1 took=0s",
		"pkg ghcr.io/kptkit/mark end=true count=1 took=1s",
		"pkg end=true count=0 took=0s",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestRenderConcurrently: one Runtime, many renders at once (go test -race).
func TestRenderConcurrently(t *testing.T) {
	t.Parallel()
	rt := render.Functions{Functions: testFunctions}
	in := kptpkg.Files{
		"Kptfile":     []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: root}\n")),
		"a.yaml":      []byte(cm("a")),
		"sub/Kptfile": []byte(pipeline("sub", "  - image: ghcr.io/kptkit/mark\n")),
		"sub/b.yaml":  []byte(cm("b")),
	}
	first := render.Render(render.Input{Files: in}, render.Options{Runtime: rt})
	if first.Failure != nil {
		t.Fatal(first.Failure)
	}
	wantFiles := map[string]string{
		"Kptfile":     pipeline("root", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: root}\n"),
		"a.yaml":      cm("a", "  annotations:\n    seen-by-root: 'a.yaml'\n"),
		"sub/Kptfile": pipeline("sub", "  - image: ghcr.io/kptkit/mark\n"),
		"sub/b.yaml":  cm("b", "  annotations:\n    seen-by-mark: 'b.yaml'\n    seen-by-root: 'b.yaml'\n"),
	}
	if diff := cmp.Diff(wantFiles, strs(first.Files)); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	want := first.Files
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got := render.Render(render.Input{Files: in}, render.Options{Runtime: rt}).Files
			if !got.Equal(want) {
				t.Error("a concurrent render differs")
			}
		})
	}
	wg.Wait()
}

// TestRenderEditedKptfile: a caller that changed the Kptfile among the
// items (a fleet variant prepends its pipeline) has that pipeline run, not
// the one the files still hold.
func TestRenderEditedKptfile(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"Kptfile": []byte(pipeline("root")),
		"a.yaml":  []byte(cm("a")),
	}
	items, err := in.Resources("", true)
	if err != nil {
		t.Fatal(err)
	}
	before := kptpkg.Copy(items)
	edited, err := yaml.Parse(pipeline("root", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: variant}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range items {
		if n.GetKind() == "Kptfile" {
			if err := edited.SetAnnotations(n.GetAnnotations()); err != nil {
				t.Fatal(err)
			}
			items[i] = edited
		}
	}
	out := render.Render(render.Input{Files: in, Items: items, Before: before}, render.Options{Runtime: render.Functions{Functions: testFunctions}})
	if out.Failure != nil {
		t.Fatal(out.Failure)
	}
	want := map[string]string{
		"Kptfile": pipeline("root", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: variant}\n"),
		"a.yaml":  cm("a", "  annotations:\n    seen-by-variant: 'a.yaml'\n"),
	}
	if diff := cmp.Diff(want, strs(out.Files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}
