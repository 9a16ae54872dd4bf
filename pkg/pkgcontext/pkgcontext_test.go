package pkgcontext_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	krmtest.Golden(t, "testdata", pkgcontext.Function)
}
