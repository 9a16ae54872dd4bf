// Package parallel shares n independent pieces of work (their indexes in)
// among a few goroutines and returns when all are done: results go in
// slots indexed by the piece, so they come out in order whatever the
// number of goroutines.
package parallel

import (
	"runtime"
	"sync"
)

// Workers is how many goroutines share n pieces of work: one per processor
// the Go runtime may use, each with at least minRun pieces.
func Workers(n, minRun int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/max(1, minRun)))
}

// Do calls work(w, i) for every i in [0, n), in w contiguous runs, each on
// its own goroutine, w being the run's number (for its own scratch state:
// builders, caches). One run is done on the caller's goroutine. Each i is
// handled by one goroutine only.
func Do(n, w int, work func(w, i int)) {
	if w <= 1 {
		for i := range n {
			work(0, i)
		}
		return
	}
	run := func(r int) {
		for i := r * n / w; i < (r+1)*n/w; i++ {
			work(r, i)
		}
	}
	var wg sync.WaitGroup
	for r := 1; r < w; r++ {
		wg.Go(func() { run(r) })
	}
	run(0)
	wg.Wait()
}
