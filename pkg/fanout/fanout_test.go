package fanout_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	krmtest.Golden(t, "testdata", fanout.Function)
}
