package pkgfs

import (
	"errors"
	"fmt"
	"io"
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
	at     string // where in dir the holder names itself (holderFile, or a file of dir)
	holder string // the file naming the holder, once named; "" for a shared lock
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
	l, err := lockDir(dir, holderFile, exclusive, wait)
	if err != nil || !exclusive {
		return l, err
	}
	if err := l.NameHolder(); err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

// LockFolder takes the lock on dir as LockDir does, but an exclusive
// lock's holder is not named yet (NameHolder), and is named in the file
// holder of dir itself (a name, no folder) rather than in .kptkit/lock:
// for folders kptkit locks and writes nothing else of its own into, such
// as git folders, where a .kptkit folder would be made and removed just to
// name the holder, and for a run that takes many locks one by one in
// order, then names itself in them several at once. A run that finds it
// held reads the holder there.
func LockFolder(dir, holder string, exclusive bool, wait time.Duration) (*Lock, error) {
	return lockDir(dir, holder, exclusive, wait)
}

// lockDir takes the lock on dir (LockDir), its holder, to be named at at,
// not named.
func lockDir(dir, at string, exclusive bool, wait time.Duration) (*Lock, error) {
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
			return nil, &LockedError{Dir: dir, Holder: readHolder(dir, at), Waited: wait}
		}
		time.Sleep(min(left, lockPoll))
	}
	return &Lock{dir: dir, f: f, at: at}, nil
}

// NameHolder writes the holder file of an exclusive lock (beside it first,
// then renamed in, so that a reader never sees half of it).
func (l *Lock) NameHolder() error {
	if err := l.nameHolder(); err != nil {
		return fmt.Errorf("cannot lock %s: %w", l.dir, err)
	}
	return nil
}

// NameHolderAs names the holder of an exclusive lock as NameHolder does,
// but by a hard link to the holder file of like, a lock this process named
// already (a run names itself alike in every folder it holds, and a link
// writes no file); nil, or a link that cannot be made (another file
// system, a file in the way), writes the file as NameHolder does.
func (l *Lock) NameHolderAs(like *Lock) error {
	if like != nil && like.holder != "" {
		holder := filepath.Join(l.dir, filepath.FromSlash(l.at))
		if os.Link(like.holder, holder) == nil {
			l.holder = holder
			return nil
		}
	}
	return l.NameHolder()
}

// nameHolder is NameHolder, its error not wrapped.
func (l *Lock) nameHolder() error {
	host, _ := os.Hostname()
	text := fmt.Sprintf("pid %d on %s since %s (%s)\n", os.Getpid(), host,
		time.Now().UTC().Format(time.RFC3339), command())
	if l.at == holderFile {
		dir := filepath.Join(l.dir, kptpkg.ReservedName)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	holder := filepath.Join(l.dir, filepath.FromSlash(l.at))
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

// readHolder returns what the holder of dir's lock says of itself in
// dir's file at, else in .kptkit/lock (where a holder taking it with
// LockDir, or a kptkit before LockFolder, names itself).
func readHolder(dir, at string) string {
	for _, p := range []string{at, holderFile} {
		if b, ok := readHolderFile(filepath.Join(dir, filepath.FromSlash(p))); ok {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// maxHolder is the most a holder file says: a longer one is not kptkit's.
const maxHolder = 1024

// readHolderFile reads a holder file: at most maxHolder bytes of a file,
// never through a symlink (a link planted in a repository's git folder
// would have kptkit quote whatever it points to in its message).
func readHolderFile(name string) ([]byte, bool) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxHolder+1))
	return b, err == nil && len(b) <= maxHolder
}

// Unlock removes the holder file (and the reserved folder it was named
// in, when that leaves it empty) and releases the lock. It unlocks before
// it closes: a child process forked meanwhile holds a copy of the
// descriptor until it executes its program, and with it the lock, which
// the close alone would leave held for that while.
func (l *Lock) Unlock() error {
	if l.holder != "" {
		_ = os.Remove(l.holder)
		if l.at == holderFile {
			_ = syscall.Rmdir(filepath.Dir(l.holder))
		}
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
