package fanout_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

func FuzzFunction(f *testing.F) {
	krmtest.Seed(f, "testdata")
	f.Fuzz(func(t *testing.T, in []byte) {
		krmtest.Fuzz(t, fanout.Function, in)
	})
}
