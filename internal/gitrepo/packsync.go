package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// A change's pack and index are written under temporary names, then
// fsynced together (two syncs at once rather than one after the other),
// and only then renamed into place and its refs moved: a ref never names
// an object that is not on disk. A run killed before that leaves only
// temporary pack files (tmp_pack_*, which git gc removes) and no lock.
//
// Group commit — the changes of many repositories waiting for one sync
// together, a batch at a time (one fsync of each file, or one syncfs of
// the file system) — was measured and not kept: with fsyncs issued
// together by the filesystem anyway, a batch only made each change wait
// for the slowest of its batch (docs/performance.md).

// syncHook, when set, runs before a change's files are synced
// (SetSyncHook).
var syncHook atomic.Pointer[func(files []string)]

// SetSyncHook sets the hook called before each change's pack files (the
// temporary files) are synced; nil removes it. It is for tests, which
// look at what is synced, or pause a process there for another to kill.
func SetSyncHook(f func(files []string)) {
	if f == nil {
		syncHook.Store(nil)
		return
	}
	syncHook.Store(&f)
}

// syncFile is how a file is synced (fsyncFile; tests make it fail).
var syncFile = fsyncFile

// syncFiles makes files durable, all at once; the first error (the
// pack's, else its index's) is returned.
func syncFiles(files []*os.File) error {
	if hook := syncHook.Load(); hook != nil {
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.Name()
		}
		(*hook)(names)
	}
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { errs[i] = syncFile(f) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fsyncFile fsyncs a file.
func fsyncFile(f *os.File) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cannot sync %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}
