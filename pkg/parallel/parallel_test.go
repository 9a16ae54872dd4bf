package parallel_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/parallel"
)

// Every piece is done once, by the run its index falls in, for any number
// of workers.
func TestDo(t *testing.T) {
	t.Parallel()
	for _, w := range []int{0, 1, 2, 3, 7} {
		const n = 100
		got := make([]int, n)
		runs := make([]int, n)
		parallel.Do(n, w, func(r, i int) { got[i]++; runs[i] = r })
		want := make([]int, n)
		for i := range want {
			want[i] = 1
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d workers: pieces done (-want +got):\n%s", w, diff)
		}
		for i := 1; i < n; i++ {
			if runs[i] < runs[i-1] {
				t.Errorf("%d workers: piece %d in run %d after run %d: runs are not contiguous", w, i, runs[i], runs[i-1])
			}
		}
	}
}

func TestWorkers(t *testing.T) {
	t.Parallel()
	if got := parallel.Workers(10, 256); got != 1 {
		t.Errorf("Workers(10, 256) = %d, want 1", got)
	}
	if got := parallel.Workers(0, 0); got != 1 {
		t.Errorf("Workers(0, 0) = %d, want 1", got)
	}
}
