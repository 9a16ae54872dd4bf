package fnrunner

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestWorkers: every function handed over runs, a function that does not
// end keeps only its own worker (the others still run), and once a burst
// is over at most keep workers wait idle.
func TestWorkers(t *testing.T) {
	w := newWorkers(2)
	block := make(chan struct{})
	w.do(func() { <-block }) // an abandoned function: never ends here
	const n = 200
	var wg sync.WaitGroup
	ran := make([]int, n)
	for i := range n {
		wg.Add(1)
		w.do(func() { ran[i]++; wg.Done() })
	}
	wg.Wait()
	for i, c := range ran {
		if c != 1 {
			t.Fatalf("function %d ran %d times, want 1", i, c)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for w.idle.Load() > 2 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if got := w.idle.Load(); got > 2 {
		t.Errorf("%d workers wait idle after the burst, want at most 2", got)
	}
	close(block)
}
