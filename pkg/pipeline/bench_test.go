package pipeline_test

import (
	"fmt"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pipeline"
)

// BenchmarkFunction compares prepend-pipeline with an identity pass over the
// same package: the function's own cost is the difference.
func BenchmarkFunction(b *testing.B) {
	fc := "apiVersion: fn.kptkit.dev/v1alpha1\nkind: PrependPipeline\nmetadata: {name: p}\nowner: platform\npipeline:\n  mutators:\n  - image: set-labels:v0.2\n    configMap: {team: platform}\n"
	for _, n := range []int{1000, 10000} {
		in := krmtest.Package(n, fc)
		b.Run(fmt.Sprintf("identity/%d", n), func(b *testing.B) { krmtest.Bench(b, krmfn.Identity, in) })
		b.Run(fmt.Sprintf("prepend-pipeline/%d", n), func(b *testing.B) { krmtest.Bench(b, pipeline.Function, in) })
	}
}
