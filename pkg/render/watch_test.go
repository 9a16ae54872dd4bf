package render_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/render"
)

// TestRenderWatch: a step of kptkit's own functions runs through
// Options.Watch; one Watch stopped waiting for fails with its error,
// nothing is written, and its result is recorded.
func TestRenderWatch(t *testing.T) {
	t.Parallel()
	in := kptpkg.Files{
		"Kptfile": []byte(pipeline("root", "  - image: ghcr.io/kptkit/mark\n", "  - image: ghcr.io/kptkit/mark\n    configMap: {who: late}\n")),
		"a.yaml":  []byte(cm("a")),
	}
	steps := 0
	watch := func(step func()) error {
		if steps++; steps == 2 {
			return errors.New("timed out after 2m0s (--step-timeout)")
		}
		step()
		return nil
	}
	out := render.Render(render.Input{Files: in}, render.Options{Runtime: render.Functions{Functions: testFunctions}, Watch: watch})
	wantFailure := &render.Failure{Image: "ghcr.io/kptkit/mark", List: "mutators", Index: 1, Message: "timed out after 2m0s (--step-timeout)"}
	if diff := cmp.Diff(wantFailure, out.Failure); diff != "" {
		t.Errorf("failure (-want +got):\n%s", diff)
	}
	if out.Files != nil || out.Executed != 1 || len(out.Results.Items) != 2 || out.Results.Items[1].ExitCode != 1 || out.Results.ExitCode != 1 {
		t.Errorf("files %v, %d executed, results %+v: want no files, one step passed, the second's result exit code 1", out.Files, out.Executed, out.Results)
	}
	// A step abandoned while it runs writes nothing Render reads (-race).
	var wg sync.WaitGroup
	abandon := func(step func()) error {
		wg.Go(step)
		return errors.New("timed out after 2m0s (--step-timeout)")
	}
	out = render.Render(render.Input{Files: in}, render.Options{Runtime: render.Functions{Functions: testFunctions}, Watch: abandon})
	wg.Wait()
	if out.Failure == nil || out.Failure.Message != "timed out after 2m0s (--step-timeout)" {
		t.Errorf("abandoned: failure %v", out.Failure)
	}
	// A Watch that waits for every step changes nothing.
	watched := render.Render(render.Input{Files: in}, render.Options{Runtime: render.Functions{Functions: testFunctions}, Watch: func(step func()) error { step(); return nil }})
	plain := render.Render(render.Input{Files: in}, render.Options{Runtime: render.Functions{Functions: testFunctions}})
	if watched.Failure != nil || cmp.Diff(plain.Files, watched.Files) != "" {
		t.Errorf("watched: failure %v, files differ:\n%s", watched.Failure, cmp.Diff(plain.Files, watched.Files))
	}
}
