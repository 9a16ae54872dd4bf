package pipeline_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pipeline"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	krmtest.Golden(t, "testdata", pipeline.Function)
}
