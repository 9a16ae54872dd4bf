package parallel_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
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

// One goroutine per minRun pieces, at most one per processor, at least one.
func TestWorkers(t *testing.T) {
	t.Parallel()
	procs := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ n, minRun, want int }{
		{10, 256, 1},
		{0, 0, 1},
		{0, 256, 1},
		{255, 256, 1},
		{2 * 256, 256, min(2, procs)},
		{2*256 + 255, 256, min(2, procs)},
		{1 << 20, 1, procs},
		{5, 0, min(5, procs)}, // minRun 0 counts as 1
	} {
		if got := parallel.Workers(c.n, c.minRun); got != c.want {
			t.Errorf("Workers(%d, %d) = %d, want %d (GOMAXPROCS %d)", c.n, c.minRun, got, c.want, procs)
		}
	}
}

// Join gives the pieces in order on any number of goroutines, and the
// first failing piece's error.
func TestJoin(t *testing.T) {
	t.Parallel()
	var want strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&want, "%d,", i)
	}
	for _, minRun := range []int{1, 10, 2000} {
		got, err := parallel.Join(1000, minRun, func(i int, b *bytes.Buffer) error {
			fmt.Fprintf(b, "%d,", i)
			return nil
		})
		if err != nil || string(got) != want.String() {
			t.Errorf("minRun %d: %v, %.40q…", minRun, err, got)
		}
		_, err = parallel.Join(1000, minRun, func(i int, b *bytes.Buffer) error {
			if i == 7 || i == 900 {
				return fmt.Errorf("piece %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "piece 7" {
			t.Errorf("minRun %d: error %v, want piece 7", minRun, err)
		}
	}
}
