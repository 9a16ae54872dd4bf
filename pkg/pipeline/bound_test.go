package pipeline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/pipeline"
)

// withSteps is a ResourceList whose Kptfile holds n mutators of its own
// (one of them platform's, which the new ones replace) and whose
// functionConfig adds add of platform's.
func withSteps(n, add int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: app\n    annotations:\n      config.kubernetes.io/path: 'Kptfile'\n  pipeline:\n    mutators:\n")
	b.WriteString("    - name: PackageVariant.platform.old.0\n      image: set-labels:v0.2\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, "    - image: set-labels:v0.2\n      configMap: {step: %q}\n", fmt.Sprint(i))
	}
	b.WriteString("functionConfig:\n  apiVersion: fn.kptkit.dev/v1alpha1\n  kind: PrependPipeline\n  metadata: {name: p}\n  owner: platform\n  pipeline:\n    mutators:\n")
	for range add {
		b.WriteString("    - image: set-annotations:v0.1\n")
	}
	return []byte(b.String())
}

// TestTooManySteps: a pipeline that would hold more than 1,000 functions
// once the owner's are in is refused on the Kptfile, which is left as it
// was; one of exactly 1,000 is written.
func TestTooManySteps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		n, add int
		want   []string
	}{
		{"1000 after replacing the owner's", kptpkg.MaxSteps, 1, nil},
		{"1001", kptpkg.MaxSteps, 2, []string{"error: Kptfile: Kptfile/app: with platform's functions the pipeline would hold 1001 functions, more than the 1000 kptkit runs from one Kptfile"}},
	} {
		in := withSteps(c.n, c.add)
		out, results := krmfn.Process(pipeline.Function, in, krmfn.Env{})
		var got []string
		for _, r := range results {
			got = append(got, r.String())
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: results (-want +got):\n%s", c.name, diff)
		}
		if changed := !strings.Contains(string(out), "PackageVariant.platform.old.0"); changed != (c.want == nil) {
			t.Errorf("%s: Kptfile changed: %v", c.name, changed)
		}
	}
}
