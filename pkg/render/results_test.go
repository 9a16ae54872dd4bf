package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/result"
)

// TestResultListAsKptkits: the SDK's results of every step become
// kptkit's, each message led by its step's function, every where-part
// kept; a result without a severity is an info, a nil one is dropped.
func TestResultListAsKptkits(t *testing.T) {
	t.Parallel()
	ref := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "cm", Namespace: "ns"}}
	steps := render.ResultList{Items: []render.StepResult{
		{Image: "ghcr.io/kptkit/set-package-context:v1", Results: framework.Results{
			{Message: "set", Severity: framework.Info},
			nil,
			{Message: "no severity"},
		}},
		{Exec: "./fn", Stderr: "boom\n", Results: framework.Results{
			{Message: "bad", Severity: framework.Error, ResourceRef: ref, Field: &framework.Field{Path: "data.x"}, File: &framework.File{Path: "cm.yaml", Index: 1}},
			{Message: "careful", Severity: framework.Warning},
		}},
	}}
	want := result.List{
		result.Infof("ghcr.io/kptkit/set-package-context:v1: set"),
		result.Infof("ghcr.io/kptkit/set-package-context:v1: no severity"),
		result.Errorf("./fn: bad").WithRef(result.ResourceRef{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", Namespace: "ns"}).
			WithField("data.x").WithFile("cm.yaml", 1),
		result.Warningf("./fn: careful"),
	}
	if d := cmp.Diff(want, steps.List()); d != "" {
		t.Errorf("ResultList.List (-want +got):\n%s", d)
	}
	wantStep := result.List{result.Infof("set"), result.Infof("no severity")}
	if d := cmp.Diff(wantStep, steps.Items[0].List()); d != "" {
		t.Errorf("StepResult.List (-want +got):\n%s", d)
	}
}

// TestStepErrors: a step's error results' messages, joined; its stderr
// when it gave none.
func TestStepErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		step render.StepResult
		want string
	}{
		{"errors", render.StepResult{Stderr: "ignored", Results: framework.Results{
			{Message: "a", Severity: framework.Error}, {Message: "w", Severity: framework.Warning}, nil, {Message: "b", Severity: framework.Error},
		}}, "a; b"},
		{"no error result: stderr", render.StepResult{Stderr: "  exit 1\n", Results: framework.Results{{Message: "w", Severity: framework.Warning}}}, "exit 1"},
		{"nothing", render.StepResult{}, ""},
	} {
		if got := tc.step.Errors(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
