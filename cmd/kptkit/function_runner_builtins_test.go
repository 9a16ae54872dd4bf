package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/status"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
)

// builtinItems are the items the built-ins' cases run over.
const builtinItems = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: env
    namespace: default # one namespace: set-namespace's message lists them in map order
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'env.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'env.yaml'
  data:
    ns: shop-prod
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web # kpt-set: ${app}
    namespace: default
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'web.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'web.yaml'
  spec:
    replicas: 3 # kpt-set: ${replicas}
    template:
      spec:
        containers:
        - name: web
          image: nginx:1.27 # kpt-set: nginx:${tag}
`

// builtinCases are a ResourceList for each built-in: its functionConfig
// after builtinItems.
var builtinCases = []struct {
	name, function, config string
}{
	{"apply-setters", "apply-setters", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: setters}\n  data: {app: shop, replicas: \"5\", tag: \"1.28\"}\n"},
	{"apply-setters without config", "apply-setters", ""},
	{"set-namespace", "set-namespace", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: ns}\n  data: {namespace: prod}\n"},
	{"set-namespace without config", "set-namespace", ""},
	{"apply-replacements", "apply-replacements", `functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: ApplyReplacements
  metadata: {name: ns}
  replacements:
  - source: {kind: ConfigMap, name: env, fieldPath: data.ns}
    targets:
    - select: {kind: Deployment}
      fieldPaths: [metadata.namespace]
`},
	{"apply-replacements from a missing source", "apply-replacements", `functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: ApplyReplacements
  metadata: {name: ns}
  replacements:
  - source: {kind: ConfigMap, name: nowhere, fieldPath: data.ns}
    targets:
    - select: {kind: Deployment}
      fieldPaths: [metadata.namespace]
`},
	{"starlark", "starlark", `functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: StarlarkRun
  metadata: {name: label}
  source: |
    for r in ctx.resource_list["items"]:
      r["metadata"].setdefault("labels", {})["by"] = "starlark"
`},
	{"starlark that fails", "starlark", `functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: StarlarkRun
  metadata: {name: fails}
  source: |
    fail("no luck")
`},
}

// builtinImages are the images that name a built-in: the catalog's two
// registries, at its version or the vX.Y alias, and a bare name:tag.
var builtinImages = map[string][]string{
	"apply-setters":      {"ghcr.io/kptdev/krm-functions-catalog/apply-setters:v0.2.0", "gcr.io/kpt-fn/apply-setters:v0.2", "apply-setters:v0.2.0"},
	"set-namespace":      {"ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4", "gcr.io/kpt-fn/set-namespace:v0.4.1", "set-namespace:v0.4"},
	"apply-replacements": {"ghcr.io/kptdev/krm-functions-catalog/apply-replacements:v0.1.1", "apply-replacements:v0.1"},
	"starlark":           {"gcr.io/kpt-fn/starlark:v0.4.3", "starlark:v0.4"},
}

// TestFunctionRunnerBuiltinsAsBinaries: the built-in catalog functions
// (starlark in a child process) answer, by each of their images, what the
// catalog's own mains write; an --exec-for binary answers what it writes.
func TestFunctionRunnerBuiltinsAsBinaries(t *testing.T) {
	bins := buildEquivBinaries(t)
	c := startFunctionRunner(t, "--exec-for", "example.com/setters:v1="+bins.catalog["apply-setters"])
	for _, tc := range builtinCases {
		in := []byte(builtinItems + tc.config)
		want := runBinary(t, bins.catalog[tc.function], in)
		images := builtinImages[tc.function]
		if tc.function == "apply-setters" {
			images = append(images, "example.com/setters:v1")
		}
		for _, image := range images {
			resp, err := c.EvaluateFunction(t.Context(), &evaluator.EvaluateFunctionRequest{Image: image, ResourceList: in})
			sameAsBinary(t, tc.name+" as "+image, image, want, resp, err)
		}
	}
}

// TestFunctionRunnerNotFound: an image of another version than the
// built-in's, or of no function kptkit has, is NOT_FOUND without
// --fallback, with kptkit render's reasons.
func TestFunctionRunnerNotFound(t *testing.T) {
	t.Parallel()
	c := startFunctionRunner(t)
	for image, want := range map[string]string{
		"apply-setters:v0.2.2": `function "apply-setters:v0.2.2" not found (ghcr.io/kptdev/krm-functions-catalog/apply-setters asks for v0.2.2; the built-in is v0.2.0 (matches :v0.2.0, :v0.2))`,
		"ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0": `function "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0" not found (set-labels is not built in (built in: apply-replacements v0.1.1, apply-setters v0.2.0, set-namespace v0.4.1, starlark v0.4.3))`,
		"example.com/set-package-context:v1":                     `function "example.com/set-package-context:v1" not found`,
	} {
		_, err := c.EvaluateFunction(t.Context(), &evaluator.EvaluateFunctionRequest{Image: image, ResourceList: []byte(builtinItems)})
		st := status.Convert(err)
		if d := cmp.Diff("NotFound: "+want, st.Code().String()+": "+st.Message()); d != "" {
			t.Errorf("%s (-want +got):\n%s", image, d)
		}
	}
}
