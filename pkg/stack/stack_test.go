package stack_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/stack"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	krmtest.Golden(t, "testdata", stack.Function)
}
