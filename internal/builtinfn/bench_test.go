package builtinfn

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/render"
)

// BenchmarkRenderVariant renders what the fleet renders for a variant: a
// package of 50 resources whose pipeline runs set-namespace (the variant's
// step) and apply-replacements (the package's), with one Runtime shared by
// all calls (with kptkit's time limit), b.N calls spread over the cores as
// the fleet spreads them.
func BenchmarkRenderVariant(b *testing.B) {
	files := kptpkg.Files{
		"Kptfile": []byte(kf +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1\n    configMap: {namespace: edge01}\n" +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/apply-replacements:v0.1.1\n    configPath: replacements.yaml\n"),
		"replacements.yaml": []byte("apiVersion: fn.kpt.dev/v1alpha1\nkind: ApplyReplacements\nmetadata:\n  name: r\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" +
			"replacements:\n- source: {kind: ConfigMap, name: kptfile.kpt.dev, fieldPath: data.name}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [\"metadata.annotations.[example.com/package]\"]\n    options: {create: true}\n"),
		"package-context.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: app\n"),
	}
	for i := range 5 {
		var docs []string
		for j := range 10 {
			docs = append(docs, fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d%d-%d\nspec:\n  replicas: 3 # scaled by hand\n  template:\n    spec:\n      containers:\n      - name: c\n        image: x:%d\n", i, j, j))
		}
		files[fmt.Sprintf("r%d.yaml", i)] = []byte(strings.Join(docs, "---\n"))
	}
	rt := &Runtime{Limits: bounded.Limits{Time: 2 * time.Minute}} // as kptkit runs it: each step waited for on a goroutine
	if out := render.Render(render.Input{Files: files}, render.Options{Runtime: rt}); out.Failure != nil {
		b.Fatal(out.Failure)
	}
	b.ReportAllocs()
	defer krmtest.CPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if out := render.Render(render.Input{Files: files}, render.Options{Runtime: rt}); out.Failure != nil {
				b.Error(out.Failure)
			}
		}
	})
}

// inProcess runs starlark in this process, as kptkit did before it ran
// it in a child: the baseline of BenchmarkStarlark.
type inProcess struct{ rt *Runtime }

func (p inProcess) Runner(fn render.Function) (render.Runner, error) {
	r, err := p.rt.Runner(fn)
	if rr, ok := r.(runner); ok && rr.f.child {
		f := *rr.f
		f.child = false
		return runner{&f, rr.rt}, err
	}
	return r, err
}

// BenchmarkStarlark renders packages whose pipelines run starlark, with
// starlark in a child process (as kptkit runs it) and in this process:
// a one-step package of one ConfigMap, and the Nephio catalog's packages
// that run starlark (each op renders all of them). The difference is the
// cost of the child.
//
//	go test ./internal/builtinfn -run '^$' -bench BenchmarkStarlark -benchtime 20x
func BenchmarkStarlark(b *testing.B) {
	small := kptpkg.Files{
		"Kptfile": []byte(kf + "  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configMap:\n      source: |\n" +
			"        for r in ctx.resource_list['items']:\n          r['metadata']['annotations'] = {'seen': 'yes'}\n"),
		"cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
	}
	cases := []struct {
		name string
		pkgs []kptpkg.Files
	}{{"small", []kptpkg.Files{small}}, {"corpus", starlarkCorpus(b)}}
	rt := &Runtime{}
	for _, c := range cases {
		for _, mode := range []struct {
			name string
			rt   render.Runtime
		}{{"in-process", inProcess{rt}}, {"child", rt}} {
			b.Run(c.name+"/"+mode.name, func(b *testing.B) {
				defer krmtest.CPU(b)()
				defer childCPU(b)()
				for b.Loop() {
					for _, p := range c.pkgs {
						if out := render.Render(render.Input{Files: p}, render.Options{Runtime: mode.rt}); out.Failure != nil {
							b.Fatal(out.Failure)
						}
					}
				}
			})
		}
	}
}

// starlarkCorpus returns the catalog's packages whose pipelines run
// starlark and render with the built-ins alone.
func starlarkCorpus(b *testing.B) []kptpkg.Files {
	var pkgs []kptpkg.Files
	for _, p := range corpus.Packages(b) {
		files, err := kptpkg.Read(os.DirFS(p))
		if err != nil || !strings.Contains(string(files["Kptfile"]), "/starlark:") {
			continue
		}
		if out := render.Render(render.Input{Files: files}, render.Options{Runtime: inProcess{&Runtime{}}}); out.Failure == nil {
			pkgs = append(pkgs, files)
		}
	}
	b.Logf("%d corpus packages run starlark", len(pkgs))
	return pkgs
}

// childCPU reports the CPU time of the children waited for, per
// operation, as "child-cpu-ms/op".
func childCPU(b *testing.B) func() {
	cpu := func() int64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
			b.Fatal(err)
		}
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start := cpu()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e6, "child-cpu-ms/op")
		}
	}
}
