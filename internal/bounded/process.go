package bounded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// Cmd is a command to run under Limits.
type Cmd struct {
	Path string   // the binary
	Args []string // its arguments, after its name
	Env  []string // its environment; nil for this process's
	// Limits bound the run. A memory limit needs Self.
	Limits Limits
	// Self is kptkit's binary (os.Executable): a child of it sets the
	// memory limit, then becomes Path.
	Self string
	// MaxStdout bounds what is read of the command's stdout (0 for no
	// bound): past it the command is killed and Run fails with a
	// *TooMuchOutput.
	MaxStdout Size
	// OnTimeout, when set, runs when the time is up, before the process
	// group is killed (a container engine's client removes its container).
	OnTimeout func()

	own bool // Path is Self running a Work, which sets its own limit
}

// Result is how a command ended.
type Result struct {
	Stdout []byte
	Stderr []byte // its first MaxStderr bytes
	Code   int    // the exit code; -1 for a signal
	// Peak is the peak resident memory (its rusage's maxrss), which on
	// Linux is at least this process's own peak when the command started
	// (Go starts it with vfork; exec records the shared memory's peak).
	Peak Size
}

// MaxStderr is how much of a command's stderr is kept.
const MaxStderr = 1 << 20

// waitDelay is how long a command's pipes are read once it has ended or
// been killed (a process it started may hold them).
const waitDelay = time.Second

// Run runs the command with in on its stdin, in a process group of its
// own, which is killed when the time is up, when the command's data goes
// past the memory limit (watchData), and once the command has ended (no
// process it started outlives it). A command that could not start is an
// error; one that hit a limit is an *Exceeded (with what it wrote); an exit
// code other than 0 is not an error.
func (c Cmd) Run(in []byte) (Result, error) {
	ctx, cancel := context.Background(), func() {}
	if c.Limits.Time > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.Limits.Time)
	}
	defer cancel()
	cmd, err := c.command(ctx)
	if err != nil {
		return Result{}, err
	}
	stdout := &limitedBuffer{max: int(c.MaxStdout)}
	// Past the bound the command is killed at once: its copier, which
	// calls this, starts after the process has started.
	stdout.stop = func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr := &capped{max: MaxStderr}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), stdout, stderr
	over, err := c.start(cmd)
	if err != nil {
		return Result{}, err
	}
	err = cmd.Wait()
	overLimit := over()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	res := Result{Stdout: stdout.buf.Bytes(), Stderr: stderr.Bytes(), Code: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.Peak = Size(ru.Maxrss) << 10 // kilobytes on Linux
	}
	var exitErr *exec.ExitError
	switch {
	case stdout.over:
		return res, &TooMuchOutput{Max: c.MaxStdout}
	case overLimit || c.Limits.Memory > 0 && res.Code != 0 && outOfMemory(res.Stderr, c.own):
		return res, &Exceeded{Memory: true, Limits: c.Limits}
	case ctx.Err() != nil && !cmd.ProcessState.Success():
		return res, &Exceeded{Limits: c.Limits}
	case err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay):
		return res, err
	}
	return res, nil
}

// start starts the command and, with a memory limit, the watch of its
// data, from the moment a trampoline has become the command (it closes
// its end of a pipe then); over stops the watch and tells whether it
// killed the command.
func (c Cmd) start(cmd *exec.Cmd) (over func() bool, err error) {
	var became, far *os.File
	if c.trampoline() {
		if became, far, err = os.Pipe(); err != nil {
			return nil, err
		}
		cmd.ExtraFiles = []*os.File{far}
	}
	err = cmd.Start()
	if far != nil {
		far.Close()
	}
	switch {
	case err != nil && became != nil:
		became.Close()
		return nil, err
	case err != nil:
		return nil, err
	case c.Limits.Memory == 0:
		return func() bool { return false }, nil
	}
	return watchData(cmd.Process.Pid, int64(c.Limits.Memory), became), nil
}

// command makes the exec.Cmd: the binary itself, or, for a memory limit,
// kptkit's child that sets it and becomes the binary.
func (c Cmd) command(ctx context.Context) (*exec.Cmd, error) {
	path, args := c.Path, c.Args
	if c.trampoline() {
		if c.Self == "" {
			return nil, errors.New("a memory limit needs kptkit's own binary to set it")
		}
		if err := executable(path); err != nil {
			return nil, err
		}
		path, args = c.Self, append([]string{Arg, execWork, strconv.FormatInt(int64(c.Limits.Memory), 10), c.Path}, args...)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = c.Env
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = waitDelay
	cmd.Cancel = func() error {
		if c.OnTimeout != nil {
			c.OnTimeout()
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd, nil
}

// trampoline: the command runs through kptkit's child, which sets its
// memory limit and becomes it.
func (c Cmd) trampoline() bool { return c.Limits.Memory > 0 && !c.own }

// executable says why path cannot be run, as starting it would.
func executable(path string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return &fs.PathError{Op: "fork/exec", Path: path, Err: errors.Unwrap(err)}
	case info.IsDir() || info.Mode()&0o111 == 0:
		return &fs.PathError{Op: "fork/exec", Path: path, Err: syscall.EACCES}
	}
	return nil
}

// outOfMemory tells a process that failed for want of memory by what it
// wrote: Go's runtime when the rlimit refused it memory (kptkit's children,
// whose guard did not see it coming: a throw, or a fault where the runtime
// took a failed mapping for memory), and the words C's, Python's and the
// JVM's runtimes use, for another binary.
func outOfMemory(stderr []byte, own bool) bool {
	if own {
		for _, w := range []string{"fatal error: runtime: out of memory", "fatal error: out of memory",
			"fatal error: runtime: cannot allocate memory", "SIGSEGV: segmentation violation",
			// a thread's stack is data too: near the limit, a new thread fails
			"runtime/cgo: pthread_create failed", "runtime: failed to create new OS thread"} {
			if bytes.HasPrefix(stderr, []byte(w)) || bytes.Contains(stderr, []byte("\n"+w)) {
				return true
			}
		}
		return false
	}
	lower := bytes.ToLower(stderr)
	for _, w := range []string{"out of memory", "cannot allocate memory", "memoryerror", "std::bad_alloc", "outofmemoryerror"} {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	return false
}

// capped keeps the first max bytes written to it, and takes the rest.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) Bytes() []byte { return c.buf.Bytes() }

// limitedBuffer keeps what is written to it up to max bytes (0 for no bound);
// past it a write fails, which stops the copying of the command's stdout,
// and the command's process group is killed.
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
	stop func() // kills the command
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.max > 0 && b.buf.Len()+len(p) > b.max {
		b.over = true
		b.stop()
		return 0, errTooMuchOutput
	}
	return b.buf.Write(p)
}

var errTooMuchOutput = errors.New("too much output")

// TooMuchOutput is a command whose stdout went past Cmd.MaxStdout.
type TooMuchOutput struct{ Max Size }

func (e *TooMuchOutput) Error() string {
	return fmt.Sprintf("its output is larger than %s, the most kptkit reads from a function: refused", e.Max)
}
