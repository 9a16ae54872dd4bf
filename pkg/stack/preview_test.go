package stack_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

// preview dry-runs a golden case's input with its config and clock.
func preview(t *testing.T, caseDir string) (*stack.Preview, stack.Options) {
	t.Helper()
	rl, err := resourcelist.Parse(read(t, filepath.Join(caseDir, krmtest.Input)))
	if err != nil {
		t.Fatal(err)
	}
	opts, rs := stack.OptionsFrom(krmfn.ConfigOf(rl), krmtest.ReadEnv(t, caseDir))
	if len(rs) > 0 {
		t.Fatal(rs)
	}
	p, rs := stack.DryRun(rl, opts)
	if p == nil {
		t.Fatalf("refused: %v", rs)
	}
	return p, opts
}

// TestPreview compares the dry run of testdata/dry-run (and of pkger's
// env_refs.yml, testdata/env-refs) with pkger's diff and summary JSON and
// the unified diff, in testdata/preview (go test -update rewrites them).
func TestPreview(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"dry-run", "env-refs"} {
		p, opts := preview(t, filepath.Join("testdata", c))
		diff, err := p.Diff().JSON()
		if err != nil {
			t.Fatal(err)
		}
		summary, err := p.Summary(opts.Env).JSON()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("testdata", "preview", c)
		compareGolden(t, filepath.Join(dir, "diff.json"), diff)
		compareGolden(t, filepath.Join(dir, "summary.json"), summary)
		compareGolden(t, filepath.Join(dir, "diff.patch"), []byte(p.Unified()))
	}
}

// A dry run changes nothing, whatever the package: the ResourceList comes
// out as it went in.
func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"dry-run", "scenario/3-rename-label", "env-ref-changed"} {
		in := read(t, filepath.Join("testdata", c, krmtest.Input))
		rl, err := resourcelist.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, rs := stack.DryRun(rl, stack.Options{Now: t0}); result.List(rs).HasError() {
			t.Fatalf("%s: %v", c, rs)
		}
		out, err := rl.Write()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(krmtest.ItemsOf(in), krmtest.ItemsOf(out)); diff != "" {
			t.Errorf("%s: a dry run changed items (-in +out):\n%s", c, diff)
		}
	}
}

// FuzzPreview: a dry run of any ResourceList does not panic, and when it
// is not refused its diff, summary and unified diff are produced.
func FuzzPreview(f *testing.F) {
	krmtest.Seed(f, "testdata")
	f.Fuzz(func(t *testing.T, in []byte) {
		rl, err := resourcelist.Parse(in)
		if err != nil {
			return
		}
		p, _ := stack.DryRun(rl, stack.Options{Now: t0})
		if p == nil {
			return
		}
		if _, err := p.Diff().JSON(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Summary(nil).JSON(); err != nil {
			t.Fatal(err)
		}
		_ = p.Unified()
	})
}

// Uninstall deletes every tracked resource from the record, which keeps
// the stack; a later apply creates them anew, with new ids.
func TestUninstall(t *testing.T) {
	t.Parallel()
	out := read(t, filepath.Join("testdata", "scenario", "1-create", krmtest.Expected))
	rl, err := resourcelist.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	first := stackOf(t, out)
	rs, err := stack.Uninstall(rl, stack.Options{Now: t1})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, r := range rs {
		msgs = append(msgs, r.Message)
	}
	want := []string{"deleted Label/lucid_einstein", "deleted Bucket/pristine_noir", "deleted Dashboard/charmed_saratoba", "uninstalled Stack/s1"}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	b, err := rl.Write()
	if err != nil {
		t.Fatal(err)
	}
	st := stackOf(t, b)
	if st.Status.StackID != first.Status.StackID || st.Status.CreatedAt != first.Status.CreatedAt ||
		st.Status.EventType != "uninstall" || len(st.Status.Resources) != 0 || st.Status.LastApplied != "" {
		t.Errorf("uninstalled record: %+v", st.Status)
	}
	// Applying the package again creates its resources with new ids.
	rl, err = resourcelist.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	rs, err = stack.Apply(rl, stack.Options{Now: t1})
	if err != nil {
		t.Fatal(err)
	}
	msgs = msgs[:0]
	for _, r := range rs {
		msgs = append(msgs, r.Message)
	}
	want = []string{"created Label/lucid_einstein", "created Bucket/pristine_noir", "created Dashboard/charmed_saratoba"}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("re-apply results (-want +got):\n%s", diff)
	}
	b, err = rl.Write()
	if err != nil {
		t.Fatal(err)
	}
	again := stackOf(t, b)
	if again.Status.EventType != "" || len(again.Status.Resources) != 3 {
		t.Fatalf("re-applied record: %+v", again.Status)
	}
	for i, r := range again.Status.Resources {
		if r.ID == first.Status.Resources[i].ID {
			t.Errorf("%s kept its id %s after the uninstall", r.Ref(), r.ID)
		}
	}
}

func ExampleDryRun() {
	rl, _ := resourcelist.Parse([]byte(`apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: influxdata.com/v2alpha1
  kind: Bucket
  metadata:
    name: metrics
  spec:
    name: {envRef: {key: bucket-name}}
`))
	p, _ := stack.DryRun(rl, stack.Options{Env: pkger.Env{"bucket-name": "metrics-prod"}})
	fmt.Print(p.Unified())
	// Output:
	// --- /dev/null
	// +++ b/Bucket/metrics
	// @@ -0,0 +1,6 @@
	// +apiVersion: influxdata.com/v2alpha1
	// +kind: Bucket
	// +metadata:
	// +  name: metrics
	// +spec:
	// +  name: metrics-prod
}
