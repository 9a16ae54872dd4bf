package pkgfs_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
)

// TestMain doubles as a process that holds a folder's lock: with
// PKGFS_TEST_HOLD=DIR it opens DIR to write (PKGFS_TEST_SHARED: to read),
// says "locked" and holds it until its stdin closes.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PKGFS_TEST_HOLD"); dir != "" {
		out, err := pkgfs.Open(dir, pkgfs.Options{ReadOnly: os.Getenv("PKGFS_TEST_SHARED") != ""})
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, os.Stdin)
		out.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holder is another process holding dir's lock.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func hold(t *testing.T, dir string, shared bool) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PKGFS_TEST_HOLD="+dir)
	if shared {
		cmd.Env = append(cmd.Env, "PKGFS_TEST_SHARED=1")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("the holder says %q", line)
	}
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { h.release() })
	return h
}

func (h *holder) release() {
	h.stdin.Close()
	_ = h.cmd.Wait()
}

// TestLockTwoProcesses (issue 20, case 1): while one process writes a
// folder, another fails at once naming it (pid, host, start), or waits
// for it with Wait; a run that only reads shares the lock with readers and
// not with a writer. A killed holder leaves nothing to take over.
func TestLockTwoProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := hold(t, dir, false)
	host, _ := os.Hostname()
	want := fmt.Sprintf("%s is in use: kptkit pid %d on %s since ", dir, h.cmd.Process.Pid, host)
	for _, opts := range []pkgfs.Options{{}, {ReadOnly: true}} {
		_, err := pkgfs.Open(dir, opts)
		var locked *pkgfs.LockedError
		if !errors.As(err, &locked) || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(pkgfs.test) holds its lock") {
			t.Errorf("%+v: error %v, want %q…", opts, err, want)
		}
	}
	opened := make(chan error)
	go func() {
		out, err := pkgfs.Open(dir, pkgfs.Options{Wait: time.Minute})
		if err == nil {
			out.Close()
		}
		opened <- err
	}()
	h.release()
	if err := <-opened; err != nil {
		t.Errorf("waiting: %v", err)
	}
	// Readers share the lock; a writer waits for them.
	r := hold(t, dir, true)
	if out, err := pkgfs.Open(dir, pkgfs.Options{ReadOnly: true}); err != nil {
		t.Errorf("a second reader: %v", err)
	} else {
		out.Close()
	}
	_, err := pkgfs.OpenOut(dir)
	if err == nil || err.Error() != dir+" is in use: another process holds its lock (one that only reads it, such as a --check or --dry-run run, names no holder)" {
		t.Errorf("a writer while a reader reads: %v", err)
	}
	r.release()
	// A killed writer's lock is gone with it.
	k := hold(t, dir, false)
	if err := k.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = k.cmd.Wait()
	out, err := pkgfs.OpenOut(dir)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	out.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the folder: %v", entries)
	}
}

// TestLockInProcess: two opens in one process exclude each other as two
// processes do; waiting ends when the other closes.
func TestLockInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := open(t, dir)
	if _, err := pkgfs.OpenOut(dir); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("kptkit pid %d on ", os.Getpid())) {
		t.Errorf("second open: %v", err)
	}
	_, err := pkgfs.Open(dir, pkgfs.Options{Wait: 60 * time.Millisecond})
	if err == nil || !strings.HasSuffix(err.Error(), "holds its lock, still after waiting 60ms") {
		t.Errorf("waiting in vain: %v", err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		first.Close()
	}()
	second, err := pkgfs.Open(dir, pkgfs.Options{Wait: time.Minute})
	if err != nil {
		t.Fatalf("waiting: %v", err)
	}
	second.Close()
}

// TestUnlockReleasesInheritedCopies: a copy of the lock's descriptor (as
// a child forked while the lock is held has, until it executes its
// program) does not keep the lock once it is released.
func TestUnlockReleasesInheritedCopies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := pkgfs.LockDir(dir, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		l.Unlock()
		t.Skip("no /proc/self/fd")
	}
	copied := -1
	for _, e := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == dir {
			fd, _ := strconv.Atoi(e.Name())
			if copied, err = syscall.Dup(fd); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if copied < 0 {
		l.Unlock()
		t.Fatalf("no descriptor of %s", dir)
	}
	defer syscall.Close(copied)
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, err := pkgfs.LockDir(dir, true, 0)
	if err != nil {
		t.Fatalf("after Unlock, with a copy of its descriptor open: %v", err)
	}
	again.Unlock()
}

// TestLockFolder: an exclusive lock taken with LockFolder excludes the
// others at once, which see no holder until it names itself (NameHolder),
// in the file of the folder it was given (no .kptkit folder), where
// LockDir does not look; its release removes what it wrote. A holder named
// in .kptkit/lock (LockDir's, an earlier kptkit's) is named to LockFolder.
func TestLockFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := pkgfs.LockFolder(dir, "holder", true, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, exclusive := range []bool{true, false} {
		_, err := pkgfs.LockFolder(dir, "holder", exclusive, 0)
		got = append(got, fmt.Sprint(err))
	}
	if err := l.NameHolder(); err != nil {
		t.Fatal(err)
	}
	_, err = pkgfs.LockFolder(dir, "holder", true, 0)
	got = append(got, strings.SplitN(fmt.Sprint(err), " on ", 2)[0])
	_, err = pkgfs.LockDir(dir, true, 0) // which looks in .kptkit/lock
	got = append(got, strings.SplitN(fmt.Sprint(err), " on ", 2)[0])
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		got = append(got, "named in "+e.Name())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	earlier, err := pkgfs.LockDir(dir, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pkgfs.LockFolder(dir, "holder", true, 0)
	got = append(got, strings.SplitN(fmt.Sprint(err), " on ", 2)[0])
	if err := earlier.Unlock(); err != nil {
		t.Fatal(err)
	}
	entries, _ = os.ReadDir(dir)
	got = append(got, fmt.Sprint(len(entries), " entries left"))
	unnamed := dir + " is in use: another process holds its lock (one that only reads it, such as a --check or --dry-run run, names no holder)"
	named := fmt.Sprintf("%s is in use: kptkit pid %d", dir, os.Getpid())
	want := []string{unnamed, unnamed, named, unnamed, "named in holder", named, "0 entries left"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestNameHolderAs: a lock named like another of the process names the
// same holder by a hard link to its file (no file written); with none to
// link to (the other released), it writes its own; each release removes
// its own name.
func TestNameHolderAs(t *testing.T) {
	t.Parallel()
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	var locks []*pkgfs.Lock
	for _, d := range dirs {
		l, err := pkgfs.LockFolder(d, "holder", true, 0)
		if err != nil {
			t.Fatal(err)
		}
		locks = append(locks, l)
	}
	same := func(a, b int) string {
		fa, err := os.Stat(filepath.Join(dirs[a], "holder"))
		fb, err2 := os.Stat(filepath.Join(dirs[b], "holder"))
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		return fmt.Sprintf("%d and %d one file: %t", a, b, os.SameFile(fa, fb))
	}
	var got []string
	if err := locks[0].NameHolderAs(nil); err != nil {
		t.Fatal(err)
	}
	if err := locks[1].NameHolderAs(locks[0]); err != nil {
		t.Fatal(err)
	}
	got = append(got, same(0, 1))
	if err := locks[0].Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := locks[2].NameHolderAs(locks[0]); err != nil { // its file is gone
		t.Fatal(err)
	}
	got = append(got, same(1, 2))
	for _, d := range dirs[1:] {
		b, _ := os.ReadFile(filepath.Join(d, "holder"))
		got = append(got, strings.SplitN(string(b), " on ", 2)[0])
	}
	for _, l := range locks[1:] {
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range dirs {
		entries, _ := os.ReadDir(d)
		got = append(got, fmt.Sprint(len(entries), " entries left"))
	}
	pid := fmt.Sprintf("pid %d", os.Getpid())
	want := []string{"0 and 1 one file: true", "1 and 2 one file: false", pid, pid, "0 entries left", "0 entries left", "0 entries left"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestHolderFileHostile: what another run finds where a holder names
// itself is read at most 1 KiB, never through a symlink, and a FIFO does
// not hang it: a link to a secret, a huge file and a FIFO are each quoted
// as no holder at all.
func TestHolderFileHostile(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("password=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, plant := range map[string]func(string) error{
		"a symlink": func(p string) error { return os.Symlink(secret, p) },
		"a huge file": func(p string) error {
			return os.WriteFile(p, []byte("pid 1 on h "+strings.Repeat("x", 2<<20)), 0o644)
		},
		"a FIFO": func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			l, err := pkgfs.LockFolder(dir, "holder", true, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock()
			if err := plant(filepath.Join(dir, "holder")); err != nil {
				t.Fatal(err)
			}
			_, err = pkgfs.LockFolder(dir, "holder", true, 0)
			want := dir + " is in use: another process holds its lock (one that only reads it, such as a --check or --dry-run run, names no holder)"
			if got := fmt.Sprint(err); got != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
		})
	}
}
