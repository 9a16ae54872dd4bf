package fleetio_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/fleetio"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// TestRenderer: a package rendered with the runtime it is given, each
// result led by its function; an exec: entry skipped with a warning (it
// never reaches the runtime); a failing step fails the package, naming it.
func TestRenderer(t *testing.T) {
	t.Parallel()
	note := krmfn.Function{Name: "note", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		rl.AddResults(result.Infof("noted").WithFile("cm.yaml", 0))
		return nil
	}}
	fail := krmfn.Function{Name: "fail", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		rl.AddResults(result.Errorf("no"))
		return nil
	}}
	r := fleetio.Renderer{Runtime: render.Functions{Functions: []krmfn.Function{note, fail}}}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
	kptfile := func(mutators string) string {
		return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n" + mutators
	}
	for _, tc := range []struct {
		name     string
		mutators string
		results  result.List
		err      string
	}{{
		name:     "results led by the function, exec skipped",
		mutators: "  - image: ghcr.io/kptkit/note:v1\n  - exec: ./anything\n",
		results: result.List{
			result.Infof("ghcr.io/kptkit/note:v1: noted").WithFile("cm.yaml", 0),
			result.Warningf("./anything: exec: entries are not run by variants render (its packages come from elsewhere): skipped"),
		},
	}, {
		name:     "a failing step",
		mutators: "  - image: ghcr.io/kptkit/fail:v1\n",
		results:  result.List{result.Errorf("ghcr.io/kptkit/fail:v1: no")},
		err:      "ghcr.io/kptkit/fail:v1 (pipeline.mutators[0]) failed: no",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := kptpkg.Files{"Kptfile": []byte(kptfile(tc.mutators)), "cm.yaml": []byte(cm)}
			out, rs, err := r.Render(files, nil, nil)
			if d := cmp.Diff(tc.results, rs); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			switch {
			case tc.err != "":
				if err == nil || err.Error() != tc.err || out != nil {
					t.Errorf("got files %v, error %v; want error %q", out.Paths(), err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if d := cmp.Diff(cm, string(out["cm.yaml"])); d != "" {
					t.Errorf("cm.yaml (-want +got):\n%s", d)
				}
			}
		})
	}
}
