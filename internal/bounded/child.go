package bounded

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/kptkit/kptkit/pkg/krmfn"
)

// Arg is the first argument of a child of kptkit:
//
//	kptkit Arg WORK MEMORY [ARG...]
//
// runs the work registered as WORK with a memory limit of MEMORY bytes (0
// for none); WORK "exec" becomes the command ARG... once the limit is set.
// kptkit's main hands such a command line to Main before anything else.
const Arg = "__kptkit-child"

// execWork is the work that becomes a command.
const execWork = "exec"

// Work is a piece of kptkit's own work run in a child: its arguments and
// stdin go in, its output goes to stdout and stderr, its exit code comes
// out.
type Work func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Child is the command that runs the work registered as work in a child
// process of self (kptkit's binary), with args, an empty environment and
// the limits (the child sets its rlimit itself; Run watches its data).
func Child(self, work string, args []string, l Limits) Cmd {
	return Cmd{
		Path:      self,
		Args:      append([]string{Arg, work, strconv.FormatInt(int64(l.Memory), 10)}, args...),
		Env:       []string{},
		Limits:    l,
		MaxStdout: krmfn.DefaultMaxInput,
		own:       true,
	}
}

// Main is a child's side, given the arguments after Arg: it sets the
// memory limit, then runs the work named, or becomes the command given to
// exec. It returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, works map[string]Work) int {
	if len(args) < 2 {
		fmt.Fprintf(stderr, "kptkit %s: want WORK MEMORY [ARG...]\n", Arg)
		return 2
	}
	name, rest := args[0], args[2:]
	memory, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || memory < 0 {
		fmt.Fprintf(stderr, "kptkit %s: memory %q is not a number of bytes\n", Arg, args[1])
		return 2
	}
	work, ok := works[name]
	if name != execWork && !ok {
		fmt.Fprintf(stderr, "kptkit %s: no work %q\n", Arg, name)
		return 2
	}
	if memory > 0 {
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: uint64(memory), Max: uint64(memory)}); err != nil {
			fmt.Fprintf(stderr, "kptkit %s: cannot set the memory limit: %v\n", Arg, err)
			return 2
		}
	}
	if name == execWork {
		return become(rest, stderr)
	}
	if memory > 0 {
		guard(memory)
	}
	return work(rest, stdin, stdout, stderr)
}

// guard makes the garbage collector work harder as the data of this
// process, which the rlimit and the parent's watch count, grows towards
// limit: garbage is collected before it counts.
func guard(limit int64) {
	if base := dataSize(os.Getpid()); base >= 0 && limit > base {
		debug.SetMemoryLimit((limit - base) * 3 / 4)
	}
}

// dataSize is a process's data and stack (/proc/PID/statm: what
// RLIMIT_DATA counts, and the main stack), in bytes; -1 when it cannot be
// read.
func dataSize(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 6 {
		return -1
	}
	pages, err := strconv.ParseInt(f[5], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// become replaces this process with the command args, its environment
// this process's.
func become(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "kptkit %s: exec wants a command\n", Arg)
		return 2
	}
	syscall.CloseOnExec(3) // the parent's pipe: its end tells it this process became the command
	err := syscall.Exec(args[0], args, os.Environ())
	fmt.Fprintf(stderr, "fork/exec %s: %v\n", args[0], err)
	return 127
}
