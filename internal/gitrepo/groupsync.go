package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Group commit: a change's pack and index are written without a sync of
// their own, under temporary names; the change then waits for a sync that
// makes them durable together with those of every other change waiting
// (their fsyncs issued at once, which the file system serves with as few
// commits of its journal as it can), and only then are they renamed into
// place and its refs moved. So a ref never names an object that is not on
// disk, as when each pack was fsynced alone, while the changes of many
// repositories share their waits on the disk. A run killed while changes wait leaves only temporary pack
// files (tmp_pack_*, which git gc removes) and no lock.

// syncReq is a change's files waiting for the group's sync, and its
// outcome.
type syncReq struct {
	files []string
	done  chan struct{}
	err   error
}

// group is the changes waiting for a sync; one goroutine (running) syncs
// them a batch at a time: those that came while a sync ran go in the next.
var group struct {
	mu      sync.Mutex
	pending []*syncReq
	running bool
}

// syncHook, when set, runs before each batch is synced (SetSyncHook).
var syncHook atomic.Pointer[func(files []string)]

// SetSyncHook sets the hook called before each batch of changes waiting
// for their sync is synced, with the batch's files (the temporary pack
// files); nil removes it. It is for tests, which look at what a batch
// holds, or pause a process there for another to kill.
func SetSyncHook(f func(files []string)) {
	if f == nil {
		syncHook.Store(nil)
		return
	}
	syncHook.Store(&f)
}

// syncFile is how a file is synced (fsyncFile; tests make it fail).
var syncFile = fsyncFile

// syncGroup makes files durable (the data written into them and their
// names), with those of the other changes waiting; an error is this
// change's own.
func syncGroup(files []string) error {
	r := &syncReq{files: files, done: make(chan struct{})}
	group.mu.Lock()
	group.pending = append(group.pending, r)
	if !group.running {
		group.running = true
		go syncLoop()
	}
	group.mu.Unlock()
	<-r.done
	return r.err
}

// syncLoop syncs the waiting changes a batch at a time, until none waits.
func syncLoop() {
	for {
		group.mu.Lock()
		batch := group.pending
		group.pending = nil
		if len(batch) == 0 {
			group.running = false
			group.mu.Unlock()
			return
		}
		group.mu.Unlock()
		syncBatch(batch)
		for _, r := range batch {
			close(r.done)
		}
	}
}

// syncBatch syncs a batch: every file of it at once, each with fsync
// (the file system joins the syncs that wait together into one commit of
// its journal), so that an error is told to the change it is of and no
// one else's writes are waited on (syncfs would flush every dirty file of
// the file system, other programs' too).
func syncBatch(batch []*syncReq) {
	if hook := syncHook.Load(); hook != nil {
		var files []string
		for _, r := range batch {
			files = append(files, r.files...)
		}
		(*hook)(files)
	}
	errs := make([][]error, len(batch))
	var wg sync.WaitGroup
	for i, r := range batch {
		errs[i] = make([]error, len(r.files))
		for k, p := range r.files {
			wg.Go(func() { errs[i][k] = syncFile(p) })
		}
	}
	wg.Wait()
	for i, r := range batch {
		for _, err := range errs[i] {
			if err != nil && r.err == nil {
				r.err = err // the first: the pack's, else its index's
			}
		}
	}
}

// fsyncFile fsyncs a file.
func fsyncFile(p string) error {
	f, err := os.Open(p)
	if err == nil {
		err = f.Sync()
		if err2 := f.Close(); err == nil {
			err = err2
		}
	}
	if err != nil {
		return fmt.Errorf("cannot sync %s: %w", filepath.Base(p), err)
	}
	return nil
}
