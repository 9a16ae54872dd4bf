package pkgfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Lock is an advisory lock (flock(2)) on a folder: exclusive for a run that
// writes it, shared for runs that only read it. It is held on the folder
// itself, so the kernel drops it when the process ends, however it ends: a
// killed run leaves nothing to take over.
type Lock struct {
	dir    string
	f      *os.File
	holder string // the file naming the holder; "" for a shared lock
}

// holderFile is where the holder of an exclusive lock names itself,
// relative to the locked folder.
const holderFile = kptpkg.ReservedName + "/lock"

// lockPoll is how often a lock is tried again while waiting for it.
const lockPoll = 50 * time.Millisecond

// LockDir takes the lock on the folder dir, which must exist: exclusive
// (the holder then names itself in dir/.kptkit/lock: pid, host, start
// time, command) or shared (nothing is written). While another process
// holds a lock that conflicts, it tries again until wait has passed (0:
// not at all), then fails with a *LockedError naming that process.
func LockDir(dir string, exclusive bool, wait time.Duration) (*Lock, error) {
	l, err := lockDir(dir, exclusive, wait)
	if err != nil || !exclusive {
		return l, err
	}
	if err := l.NameHolder(); err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

// LockDirUnnamed takes the exclusive lock on dir as LockDir does, but its
// holder is not named yet (NameHolder): for a run that takes many locks
// one by one in order, and then names itself in them several at once.
func LockDirUnnamed(dir string, wait time.Duration) (*Lock, error) {
	return lockDir(dir, true, wait)
}

// lockDir takes the lock on dir (LockDir), its holder not named.
func lockDir(dir string, exclusive bool, wait time.Duration) (*Lock, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", dir, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("cannot lock %s: %w", dir, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			f.Close()
			return nil, &LockedError{Dir: dir, Holder: readHolder(dir), Waited: wait}
		}
		time.Sleep(min(left, lockPoll))
	}
	return &Lock{dir: dir, f: f}, nil
}

// NameHolder writes the holder file of an exclusive lock (beside it first,
// then renamed in, so that a reader never sees half of it).
func (l *Lock) NameHolder() error {
	if err := l.nameHolder(); err != nil {
		return fmt.Errorf("cannot lock %s: %w", l.dir, err)
	}
	return nil
}

// nameHolder is NameHolder, its error not wrapped.
func (l *Lock) nameHolder() error {
	host, _ := os.Hostname()
	text := fmt.Sprintf("pid %d on %s since %s (%s)\n", os.Getpid(), host,
		time.Now().UTC().Format(time.RFC3339), command())
	dir := filepath.Join(l.dir, kptpkg.ReservedName)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	holder := filepath.Join(l.dir, filepath.FromSlash(holderFile))
	tmp := holder + "." + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, holder); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	l.holder = holder
	return nil
}

// command is the command line up to its first flag, program by base name.
func command() string {
	words := []string{filepath.Base(os.Args[0])}
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-") || len(words) == 3 {
			break
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// readHolder returns what the holder of dir's lock says of itself.
func readHolder(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(holderFile)))
	if err != nil || len(b) > 1024 {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Unlock removes the holder file (and the reserved folder, when that
// leaves it empty) and releases the lock. It unlocks before it closes: a
// child process forked meanwhile holds a copy of the descriptor until it
// executes its program, and with it the lock, which the close alone would
// leave held for that while.
func (l *Lock) Unlock() error {
	if l.holder != "" {
		_ = os.Remove(l.holder)
		_ = syscall.Rmdir(filepath.Dir(l.holder))
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	return l.f.Close()
}

// LockedError is a folder another process holds the lock of.
type LockedError struct {
	Dir string
	// Holder is what the holder says of itself ("pid 42 on host since
	// 2026-11-27T15:04:05Z (kptkit variants render)"), "" when it said
	// nothing (a shared lock, or a holder just starting).
	Holder string
	Waited time.Duration
}

func (e *LockedError) Error() string {
	who := "another process holds its lock (one that only reads it, such as a --check or --dry-run run, names no holder)"
	if e.Holder != "" {
		who = "kptkit " + e.Holder + " holds its lock"
	}
	if e.Waited > 0 {
		return fmt.Sprintf("%s is in use: %s, still after waiting %s", e.Dir, who, e.Waited)
	}
	return fmt.Sprintf("%s is in use: %s", e.Dir, who)
}
