package gitrepo

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// A ref transaction made in process holds its refs' locks (<ref>.lock)
// from its prepare to its commit or abort. git removes the locks it holds
// when it is interrupted; so does kptkit: an interrupt (SIGINT, SIGTERM)
// waits for every transaction under way to end — committed whole, or
// aborted with its locks removed — lets none start, then ends the process
// by the same signal. A transaction is thus made whole or not at all, and
// no lock is left (a SIGKILL still can, as with git).

// A second interrupt while the first waits (a transaction that does not
// end: a file system that hangs) ends the process at once, as git would
// be: the locks the transactions under way hold are removed first, so a
// ref is moved or not, and nothing is left locked.

// transactions is held for reading by each transaction under way, and for
// writing by an interrupt.
var transactions sync.RWMutex

// heldLocks are the lock files the transactions under way hold.
var heldLocks struct {
	sync.Mutex
	paths map[string]struct{}
}

// holdLock and releaseLock record a lock file made and gone.
func holdLock(p string) {
	heldLocks.Lock()
	defer heldLocks.Unlock()
	if heldLocks.paths == nil {
		heldLocks.paths = map[string]struct{}{}
	}
	heldLocks.paths[p] = struct{}{}
}

func releaseLock(p string) {
	heldLocks.Lock()
	defer heldLocks.Unlock()
	delete(heldLocks.paths, p)
}

// watchInterrupts starts, once, the goroutine that waits for an interrupt.
var watchInterrupts = sync.OnceFunc(func() {
	c := make(chan os.Signal, 2)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-c
		go func() {
			<-c
			heldLocks.Lock() // no lock is made or let go of from now on
			for p := range heldLocks.paths {
				_ = os.Remove(p)
			}
			endBy(sig)
		}()
		transactions.Lock() // the transactions under way end first; no other starts
		endBy(sig)
	}()
})

// endBy ends the process by the signal sig.
func endBy(sig os.Signal) {
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
	select {} // the signal ends the process
}

// transactionHook, when set, is called in a transaction made in process,
// its locks held, before it commits (SetTransactionHook).
var transactionHook atomic.Pointer[func()]

// SetTransactionHook sets the hook called in each ref transaction made in
// process between its locks and its commit; nil removes it. It is for
// tests, which pause a process there to interrupt it.
func SetTransactionHook(f func()) {
	if f == nil {
		transactionHook.Store(nil)
		return
	}
	transactionHook.Store(&f)
}

// guardTransaction marks a transaction under way until the function it
// returns is called: an interrupt waits for it.
func guardTransaction() func() {
	watchInterrupts()
	transactions.RLock()
	return transactions.RUnlock
}
