// Package parallel shares n independent pieces of work (their indexes in)
// among a few goroutines and returns when all are done: results go in
// slots indexed by the piece, so they come out in order whatever the
// number of goroutines.
package parallel

import (
	"bytes"
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

// Join calls write for each of n pieces, on Workers(n, minRun) goroutines,
// each writing its run into its own buffer, and returns what they wrote in
// order, or the first error of the first run that failed. For encoding many
// items, where the writing is most of the cost.
func Join(n, minRun int, write func(i int, b *bytes.Buffer) error) ([]byte, error) {
	w := Workers(n, minRun)
	parts := make([]bytes.Buffer, w)
	errs := make([]error, w)
	Do(n, w, func(r, i int) {
		if errs[r] == nil {
			errs[r] = write(i, &parts[r])
		}
	})
	if len(parts) == 1 {
		return parts[0].Bytes(), errs[0]
	}
	var b bytes.Buffer
	for r := range parts {
		if errs[r] != nil {
			return nil, errs[r]
		}
		b.Write(parts[r].Bytes())
	}
	return b.Bytes(), nil
}
