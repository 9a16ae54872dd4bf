package pkgcontext_test

import (
	"fmt"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
)

// BenchmarkFunction compares set-package-context with an identity pass over
// the same package: the function's own cost is the difference.
func BenchmarkFunction(b *testing.B) {
	fc := "apiVersion: fn.kptkit.dev/v1alpha1\nkind: SetPackageContext\nmetadata: {name: c}\ndata: {env: prod, region: eu}\nremoveKeys: [zone]\n"
	for _, n := range []int{1000, 10000} {
		in := krmtest.Package(n, fc)
		b.Run(fmt.Sprintf("identity/%d", n), func(b *testing.B) { krmtest.Bench(b, krmfn.Identity, in) })
		b.Run(fmt.Sprintf("set-package-context/%d", n), func(b *testing.B) { krmtest.Bench(b, pkgcontext.Function, in) })
	}
}
