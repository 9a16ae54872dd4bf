package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/render"
)

// BenchmarkRenderVariant renders what the fleet renders for a variant: a
// package of 50 resources whose pipeline runs set-namespace (the variant's
// step) and apply-replacements (the package's), with one Runtime shared by
// all calls, b.N calls spread over the cores as the fleet spreads them.
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
	rt := &Runtime{}
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
