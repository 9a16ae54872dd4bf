package builtinfn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	sdk "github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/render"
)

func TestRuntimeMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		image, tag string
		want       string // the built-in's name, or the reason it is not used
	}{
		{"ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1", "", "set-namespace"},
		{"gcr.io/kpt-fn/set-namespace:v0.4", "", "set-namespace"},
		{"ghcr.io/kptdev/krm-functions-catalog/apply-replacements:v0.1", "", "apply-replacements"},
		{"gcr.io/kpt-fn/apply-setters:v0.2.0", "", "apply-setters"},
		{"ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3", "", "starlark"},
		{"ghcr.io/kptdev/krm-functions-catalog/set-namespace", "~0.4", "set-namespace"},
		{"ghcr.io/kptdev/krm-functions-catalog/set-namespace:v9", "0.4.1 - 0.4.3", "set-namespace"},
		{"ghcr.io/kptdev/krm-functions-catalog/set-namespace", "v0.4.1", "set-namespace"},
		{"ghcr.io/kptdev/krm-functions-catalog/starlark:v0.5.0", "",
			"ghcr.io/kptdev/krm-functions-catalog/starlark asks for v0.5.0; the built-in is v0.4.3 (matches :v0.4.3, :v0.4)"},
		{"ghcr.io/kptdev/krm-functions-catalog/starlark", "",
			"ghcr.io/kptdev/krm-functions-catalog/starlark has no tag (latest); the built-in is v0.4.3 (matches :v0.4.3, :v0.4)"},
		{"ghcr.io/kptdev/krm-functions-catalog/set-namespace", "~0.5", "ghcr.io/kptdev/krm-functions-catalog/set-namespace tag \"~0.5\" does not allow the built-in v0.4.1"},
		{"ghcr.io/kptdev/krm-functions-catalog/set-namespace", "v0.4.2", "ghcr.io/kptdev/krm-functions-catalog/set-namespace tag v0.4.2 asks for v0.4.2; the built-in is v0.4.1"},
		{"gcr.io/kpt-fn/set-namespace@sha256:" + strings.Repeat("a", 64), "",
			"gcr.io/kpt-fn/set-namespace@sha256:" + strings.Repeat("a", 64) + " is pinned to a digest; the built-in is v0.4.1"},
		{"ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0", "",
			"set-labels is not built in (built in: apply-replacements v0.1.1, apply-setters v0.2.0, set-namespace v0.4.1, starlark v0.4.3)"},
		{"example.com/set-namespace:v0.4.1", "", "not handled"},
		{"", "", "not handled"},
	}
	rt := &Runtime{}
	for _, tt := range tests {
		for range 2 { // the second answer comes from the cache
			r, err := rt.Runner(render.Function{Image: tt.image, Tag: tt.tag, Exec: map[bool]string{true: "x"}[tt.image == ""]})
			got := ""
			var u *render.Unhandled
			switch {
			case err == nil:
				got = r.(runner).f.Name
			case errors.As(err, &u):
				got = u.Error()
			default:
				got = "error: " + err.Error()
			}
			if got != tt.want {
				t.Errorf("%s (tag %q):\n got %s\nwant %s", tt.image, tt.tag, got, tt.want)
			}
		}
	}
}

func TestMain(m *testing.M) {
	// This test binary is the child that runs starlark.
	if len(os.Args) > 1 && os.Args[1] == bounded.Arg {
		os.Exit(bounded.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, Works()))
	}
	os.Exit(m.Run())
}

// run renders a package with the built-ins and returns its files, or fails.
func run(t *testing.T, files kptpkg.Files) render.Output {
	t.Helper()
	return render.Render(render.Input{Files: files}, render.Options{Runtime: &Runtime{}})
}

const kf = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n"

func TestBuiltinsRun(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"Kptfile": []byte(kf +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1\n    configMap: {namespace: prod}\n" +
			"  - image: gcr.io/kpt-fn/apply-setters:v0.2\n    configMap: {replicas: \"4\"}\n" +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/apply-replacements:v0.1.1\n    configPath: replacements.yaml\n" +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configPath: star.yaml\n"),
		"replacements.yaml": []byte("apiVersion: fn.kpt.dev/v1alpha1\nkind: ApplyReplacements\nmetadata:\n  name: r\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" +
			"replacements:\n- source: {kind: ConfigMap, name: src, fieldPath: data.color}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [metadata.labels.color]\n    options: {create: true}\n"),
		"star.yaml": []byte("apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: s\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" +
			"source: |\n  for r in ctx.resource_list[\"items\"]:\n    if r[\"kind\"] == \"Deployment\":\n      r[\"metadata\"][\"annotations\"][\"star\"] = \"yes\"\n"),
		"src.yaml":    []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  color: blue\n"),
		"deploy.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: old\nspec:\n  replicas: 1 # kpt-set: ${replicas}\n"),
	}
	out := run(t, in)
	if out.Failure != nil {
		t.Fatal(out.Failure)
	}
	want := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: prod\n  annotations:\n    star: \"yes\"\n  labels:\n    color: blue\nspec:\n  replicas: 4 # kpt-set: ${replicas}\n"
	if diff := cmp.Diff(want, string(out.Files["deploy.yaml"])); diff != "" {
		t.Errorf("deploy.yaml (-want +got):\n%s", diff)
	}
	if n := len(out.Results.Items); n != 4 {
		t.Errorf("%d results, want one a step", n)
	}
}

func TestPanicIsAnErrorResult(t *testing.T) {
	t.Parallel()
	r := runner{&Function{Name: "boom", Run: func([]byte) ([]byte, render.Exit) { panic("kaboom") }}, &Runtime{}}
	out, exit, err := r.Run([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"))
	if err != nil || exit.Code != 1 || !strings.Contains(string(out), "boom panicked: kaboom") || !strings.Contains(string(out), "severity: error") {
		t.Errorf("got %q, exit %+v, err %v; want an error result and exit code 1", out, exit, err)
	}
}

func TestStarlarkHasNoNetwork(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"Kptfile": []byte(kf + "  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configPath: star.yaml\n"),
		"star.yaml": []byte("apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: s\n" +
			"source: |\n  load('http.star', 'http')\n  http.get('http://127.0.0.1:9/')\n"),
	}
	out := run(t, in)
	if out.Failure == nil || !strings.Contains(out.Failure.Message, "network access is off") {
		t.Errorf("failure %v, want the network refused", out.Failure)
	}
}

// TestStarlarkSeesNoEnvironment runs itself with a variable set: starlark,
// in a child process, sees no environment (ctx.environment is empty).
func TestStarlarkSeesNoEnvironment(t *testing.T) {
	if os.Getenv("KPTKIT_CATALOG_CHILD") == "1" {
		in := kptpkg.Files{
			"Kptfile": []byte(kf + "  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configPath: star.yaml\n"),
			"star.yaml": []byte("apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: s\n" +
				"source: |\n  for r in ctx.resource_list['items']:\n    if r['kind'] == 'ConfigMap':\n      r['data'] = {'secret': ctx.environment.get('SECRET', 'none')}\n"),
			"cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
		}
		out := run(t, in)
		if out.Failure != nil {
			t.Fatal(out.Failure)
		}
		os.Stdout.Write(out.Files["cm.yaml"])
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStarlarkSeesNoEnvironment$")
	cmd.Env = append(os.Environ(), "KPTKIT_CATALOG_CHILD=1", "SECRET=hunter2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "secret: none") || strings.Contains(string(out), "hunter2") {
		t.Errorf("starlark should see no environment:\n%s", out)
	}
}

// TestBuiltinsConcurrently: one Runtime, many renders at once (-race).
func TestBuiltinsConcurrently(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"Kptfile": []byte(kf +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1\n    configMap: {namespace: prod}\n" +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configMap: {source: \"pass\"}\n"),
		"cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
	}
	rt := &Runtime{}
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			out := render.Render(render.Input{Files: in}, render.Options{Runtime: rt})
			if out.Failure != nil || !strings.Contains(string(out.Files["cm.yaml"]), "namespace: prod") {
				t.Errorf("failure %v, files %q", out.Failure, out.Files["cm.yaml"])
			}
		})
	}
	wg.Wait()
}

// TestWriteSDKMany: a list long enough to be written on several cores
// comes out as the SDK writes it.
func TestWriteSDKMany(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for i := range 700 {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%03d # c\n  data:\n    k: v\n", 699-i)
	}
	b.WriteString("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: f\n  data:\n    namespace: ns\n")
	want, werr := sdk.Run(setNamespace, []byte(b.String()))
	got, gerr := runSDK(setNamespace, []byte(b.String()))
	if werr != nil || gerr != nil || string(got) != string(want) {
		t.Errorf("runSDK of 700 items differs from fn.Run (%v, %v)", gerr, werr)
	}
}

// TestWriteSDKEmitsWrappedItems: items a function edits in place still wrap
// parseSDK's nodes, which writeSDK then writes with the emitter.
func TestWriteSDKEmitsWrappedItems(t *testing.T) {
	t.Parallel()
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a # a\n  data:\n    k: |\n      x\n      y\n" +
		"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: b\n  spec:\n    args: [\"--v=2\"]\n" +
		"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: f\n  data:\n    namespace: ns\n"
	rl, nodes, err := parseSDK([]byte(in))
	if err != nil || nodes == nil {
		t.Fatalf("parseSDK: %v (nodes %v)", err, nodes)
	}
	if _, err := setNamespace.Process(rl); err != nil {
		t.Fatal(err)
	}
	for _, o := range rl.Items {
		if nodes.nodeOf(o) == nil {
			t.Errorf("%s: no longer known to wrap its node", o.GetName())
		}
	}
	want, werr := sdk.Run(setNamespace, []byte(in))
	got, gerr := runSDK(setNamespace, []byte(in))
	if werr != nil || gerr != nil || string(got) != string(want) {
		t.Errorf("runSDK differs from fn.Run (%v, %v):\n%s", gerr, werr, cmp.Diff(string(want), string(got)))
	}
}
