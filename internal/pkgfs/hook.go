package pkgfs

import (
	"errors"
	"sync/atomic"
)

// applyHook, when set, is called before each step of a write's apply with
// the step's number and path.
var applyHook atomic.Pointer[func(step int, path string) error]

// ErrStop, returned by the apply hook, stops a write where it is, as a
// kill would: nothing is undone, the journal stays.
var ErrStop = errors.New("stopped by the apply hook")

// SetApplyHook sets the hook called before each step of every write's
// apply, and before its commit (path ""), and before WriteFile renames
// its file in; nil removes it. It is for tests
// of the writers, which make a step fail with it (any error: the write
// undoes what it did), stop a write as a kill would (ErrStop), or pause a
// process there for another to kill.
func SetApplyHook(f func(step int, path string) error) {
	if f == nil {
		applyHook.Store(nil)
		return
	}
	applyHook.Store(&f)
}
