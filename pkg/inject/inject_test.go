package inject_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// TestGolden runs the golden cases. inject-config consumes its in-cluster
// items, so, as a user brings the sources in again on every run, the second
// run gets the first run's output plus the input's in-cluster items.
func TestGolden(t *testing.T) {
	t.Parallel()
	krmtest.GoldenWith(t, "testdata", inject.Function, krmtest.Options{Rerun: krmtest.WithInCluster})
}
