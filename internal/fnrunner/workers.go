package fnrunner

import "sync/atomic"

// workers run calls' functions on goroutines kept from call to call: a
// goroutine started per call grew its stack from 8 KiB on every call (a
// function's parsing runs deep), about a tenth of what the server adds to a
// function. A function goes to an idle worker, or to a new one when none
// waits (a function abandoned at the step limit keeps its worker till it
// ends); at most keep of them wait idle, the others end.
type workers struct {
	tasks chan func()
	idle  atomic.Int32
	keep  int32
}

func newWorkers(keep int) *workers {
	return &workers{tasks: make(chan func()), keep: int32(keep)}
}

// do runs f on a worker, without waiting for it.
func (w *workers) do(f func()) {
	select {
	case w.tasks <- f:
	default:
		go w.loop(f)
	}
}

// loop runs f, then the functions handed to it while it is needed.
func (w *workers) loop(f func()) {
	for {
		f()
		if w.idle.Add(1) > w.keep {
			w.idle.Add(-1)
			return
		}
		f = <-w.tasks
		w.idle.Add(-1)
	}
}
