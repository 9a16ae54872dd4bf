package stack_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack"
)

// TestScenario tells pkger's stack story step by step: each folder of
// testdata/scenario holds one version of the package (resourcelist.yaml,
// without a Stack) and its clock (env); the Stack the previous step wrote is
// added to it, as kpt would read it back from stack.yaml. Each step's whole
// output is compared with its expected.yaml (go test -update rewrites them),
// and the story's invariants are checked on the way.
func TestScenario(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("testdata", "scenario", "*", krmtest.Input))
	if err != nil || len(dirs) == 0 {
		t.Fatal("no scenario steps in testdata/scenario")
	}
	slices.Sort(dirs)
	var (
		prevOut   []byte
		prevStack *v1alpha1.Stack
	)
	for _, in := range dirs {
		dir := filepath.Dir(in)
		input := withStacks(t, read(t, in), prevOut)
		out, results := krmtest.Run(t, stack.Function, input, krmtest.ReadEnv(t, dir))
		compareGolden(t, filepath.Join(dir, krmtest.Expected), out)
		st := stackOf(t, out)
		checkStep(t, filepath.Base(dir), input, out, results, prevStack, st)
		prevOut, prevStack = out, st
	}
}

// checkStep checks what every step must show: an unchanged apply leaves the
// items byte-identical; otherwise updatedAt moves, the stack keeps its id
// and createdAt, and every resource kept keeps its id.
func checkStep(t *testing.T, step string, in, out []byte, results result.List, prev, st *v1alpha1.Stack) {
	t.Helper()
	if results.HasError() {
		t.Fatalf("%s: unexpected errors: %v", step, results)
	}
	if len(results) == 1 && results[0].Message == "no changes" {
		if diff := cmp.Diff(krmtest.ItemsOf(in), krmtest.ItemsOf(out)); diff != "" {
			t.Errorf("%s: an unchanged apply changed items (-in +out):\n%s", step, diff)
		}
		return
	}
	if prev == nil {
		return
	}
	if st.Status.StackID != prev.Status.StackID || st.Status.CreatedAt != prev.Status.CreatedAt {
		t.Errorf("%s: the stack's id or createdAt changed: %s %s → %s %s", step,
			prev.Status.StackID, prev.Status.CreatedAt, st.Status.StackID, st.Status.CreatedAt)
	}
	if st.Status.UpdatedAt == prev.Status.UpdatedAt {
		t.Errorf("%s: something changed but updatedAt stayed %s", step, st.Status.UpdatedAt)
	}
	ids := map[string]string{}
	for _, r := range prev.Status.Resources {
		ids[r.Key()] = r.ID
	}
	for _, r := range st.Status.Resources {
		if id, ok := ids[r.Key()]; ok && id != r.ID {
			t.Errorf("%s: %s changed id %s → %s", step, r.Ref(), id, r.ID)
		}
	}
}

// withStacks adds the Stacks of a previous output to a ResourceList.
func withStacks(t *testing.T, in, prevOut []byte) []byte {
	t.Helper()
	if prevOut == nil {
		return in
	}
	rl, err := yaml.Parse(string(in))
	if err != nil {
		t.Fatal(err)
	}
	prev, err := yaml.Parse(string(prevOut))
	if err != nil {
		t.Fatal(err)
	}
	items := rl.Field("items").Value
	for _, it := range prev.Field("items").Value.Content() {
		if h := resourcelist.HeaderOf(yaml.NewRNode(it)); stack.IsStack(h) {
			items.YNode().Content = append(items.YNode().Content, it)
		}
	}
	s, err := rl.String()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

// stackOf decodes the only Stack of an output.
func stackOf(t *testing.T, out []byte) *v1alpha1.Stack {
	t.Helper()
	rl, err := resourcelist.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	stacks := rl.Select(stack.IsStack)
	if len(stacks) != 1 {
		t.Fatalf("want 1 Stack in the output, got %d", len(stacks))
	}
	var st v1alpha1.Stack
	if errs := decode.Into(stacks[0].Node().YNode(), &st, decode.Options{KnownFields: true}, ""); len(errs) > 0 {
		t.Fatalf("the Stack written does not decode: %v", errs)
	}
	return &st
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compareGolden compares got with a golden file, rewriting it under -update.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := read(t, path)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
