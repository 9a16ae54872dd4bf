package bounded

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// watchEvery is how often a command's data is read.
const watchEvery = 10 * time.Millisecond

// watchData reads the data of process pid every watchEvery, once ready
// (nil, or a pipe that ends when the process has become the command), and
// kills its process group when it is past limit; the function it returns
// stops the watch and tells whether it killed. The rlimit alone does not
// hold: Linux counts a MAP_FIXED mapping over a reservation of address
// space (as Go's heap grows) as taking the reservation's place, so a Go
// process maps far past RLIMIT_DATA; /proc counts it. Without /proc there
// is no watch.
func watchData(pid int, limit int64, ready *os.File) (stop func() bool) {
	done := make(chan struct{})
	var killed atomic.Bool
	go func() {
		if ready != nil {
			_, _ = io.Copy(io.Discard, ready)
		}
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			size := dataSize(pid)
			if size < 0 {
				return
			}
			if size > limit {
				killed.Store(true)
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				return
			}
		}
	}()
	return func() bool {
		close(done)
		if ready != nil {
			ready.Close()
		}
		return killed.Load()
	}
}
