package gitrepo

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// A ref transaction made in process holds its refs' locks (<ref>.lock)
// from its prepare to its commit or abort. git removes the locks it holds
// when it is interrupted; so does kptkit: an interrupt (SIGINT, SIGTERM)
// waits for every transaction under way to end — committed whole, or
// aborted with its locks removed — lets none start, then ends the process
// by the same signal. A transaction is thus made whole or not at all, and
// no lock is left (a SIGKILL still can, as with git).

// transactions is held for reading by each transaction under way, and for
// writing by an interrupt.
var transactions sync.RWMutex

// watchInterrupts starts, once, the goroutine that waits for an interrupt.
var watchInterrupts = sync.OnceFunc(func() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-c
		transactions.Lock() // the transactions under way end first; no other starts
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		select {} // the signal ends the process
	}()
})

// guardTransaction marks a transaction under way until the function it
// returns is called: an interrupt waits for it.
func guardTransaction() func() {
	watchInterrupts()
	transactions.RLock()
	return transactions.RUnlock
}
