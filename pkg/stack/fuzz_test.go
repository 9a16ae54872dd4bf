package stack_test

import (
	"path/filepath"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/stack"
)

func FuzzFunction(f *testing.F) {
	krmtest.Seed(f, "testdata")
	krmtest.Seed(f, filepath.Join("testdata", "pkger"))
	f.Fuzz(func(t *testing.T, in []byte) {
		krmtest.Fuzz(t, stack.Function, in)
	})
}
