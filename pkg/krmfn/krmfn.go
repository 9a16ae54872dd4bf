// Package krmfn runs a KRM function over a ResourceList: the input bytes and
// the outside world (clock, environment) go in as values; the output bytes
// and the exit code come out. It also reads the functionConfig: which kind it
// is, and its decoding into a typed config with every problem reported.
package krmfn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Env is what a function may know of the world beyond its input. The edges
// (a main package, a test) fill it in; pkg/ never reads the clock or the
// environment itself.
type Env struct {
	Now    func() time.Time
	Getenv func(string) string
}

// Function is a KRM function: a name and what it does to a ResourceList.
type Function struct {
	Name string
	// Run transforms rl in place and records problems as results on it. It
	// returns a Go error only when no output can be produced.
	Run func(rl *resourcelist.ResourceList, env Env) error
}

// Process runs f over a ResourceList given as bytes. It always returns a
// ResourceList (an empty one carrying the error when the input cannot be
// read) and the results it reports.
func Process(f Function, in []byte, env Env) (out []byte, results result.List) {
	return AppendProcess(nil, f, in, env)
}

// AppendProcess is Process, the output appended to dst (a buffer a caller
// keeps from call to call).
func AppendProcess(dst []byte, f Function, in []byte, env Env) (out []byte, results result.List) {
	rl := run(f, in, env)
	out, err := rl.AppendText(dst)
	if err != nil {
		rl = failed(fmt.Errorf("cannot write the output: %w", err))
		out, _ = rl.AppendText(dst)
	}
	return out, rl.Results()
}

// run parses in and runs f over it, or returns an empty list that carries
// the error when in is not a ResourceList.
func run(f Function, in []byte, env Env) *resourcelist.ResourceList {
	rl, err := resourcelist.Parse(in)
	if err != nil {
		return failed(err)
	}
	Apply(f, rl, env)
	return rl
}

// failed returns an empty ResourceList reporting err: a list that writes
// a key twice in a mapping is refused whole (as kpt refuses input it
// cannot parse), with a result for each key.
func failed(err error) *resourcelist.ResourceList {
	rl := resourcelist.Empty()
	if dup := (*resourcelist.DuplicateKeysError)(nil); errors.As(err, &dup) {
		rl.AddResults(dup.Results...)
		return rl
	}
	rl.AddResults(result.Errorf("%v", err))
	return rl
}

// Apply runs f over a parsed ResourceList. A Go error or a panic becomes an
// error result: a function never crashes its caller.
func Apply(f Function, rl *resourcelist.ResourceList, env Env) {
	defer func() {
		if r := recover(); r != nil {
			rl.AddResults(result.Errorf("internal error (please report it): %v", r))
		}
	}()
	if err := f.Run(rl, env); err != nil {
		rl.AddResults(result.Errorf("%v", err))
	}
}

// Main is a function binary's whole life: `--help` prints usage; otherwise
// it reads a ResourceList from stdin (at most --max-input SIZE bytes,
// DefaultMaxInput unless given: a larger one is refused before it is read
// whole), writes the result to stdout, prints error results to stderr, and
// returns the exit code (1 when the results hold an error, 2 for bad
// arguments).
func Main(f Function, usage string, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) int {
	help, maxInput, err := mainArgs(args)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", f.Name, err)
		return 2
	case help:
		fmt.Fprint(stdout, usage)
		return 0
	}
	in, err := ReadAtMost(stdin, maxInput, "--max-input")
	if err != nil {
		fmt.Fprintf(stderr, "%s: cannot read stdin: %v\n", f.Name, err)
		return 1
	}
	if len(in) >= 1<<20 {
		// A big input: hold the collector to a ceiling that follows it,
		// so that the peak stays within a few times the input whenever
		// the collector would otherwise run late (BigInputLimit).
		debug.SetMemoryLimit(BigInputLimit(len(in)))
	}
	rl := run(f, in, env)
	if len(in) >= 1<<20 {
		// What the function read and dropped is garbage now: collect it
		// before the output is encoded, not after.
		runtime.GC()
	}
	rl, err = write(rl, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "%s: cannot write stdout: %v\n", f.Name, err)
		return 1
	}
	results := rl.Results()
	if !results.HasError() {
		return 0
	}
	// kustomize shows stderr, not results: say there what went wrong.
	io.WriteString(stderr, Stderr(f, results))
	return 1
}

// BigInputLimit is the soft memory limit a function binary runs with over
// an input of n bytes (1 MiB or more): five halves of the input, which a
// function holds at most once besides the input itself and its output,
// and 32 MiB for the rest. Go's collector keeps the heap under it by
// collecting sooner, never by failing: a function that needs more runs
// on, collecting often.
func BigInputLimit(n int) int64 { return int64(n)*5/2 + 32<<20 }

// Stderr is what a function's binary writes on stderr for its results: a
// line for each error.
func Stderr(f Function, results result.List) string {
	var b strings.Builder
	for _, r := range results.Errors() {
		fmt.Fprintf(&b, "%s: %s\n", f.Name, r.String())
	}
	return b.String()
}

// write streams the output to w: the items nobody changed go from the
// input to w, never held twice. A list that cannot be encoded is replaced
// by an empty one reporting it (nothing was written yet), which write
// returns in its place.
func write(rl *resourcelist.ResourceList, w io.Writer) (*resourcelist.ResourceList, error) {
	out := &stickyWriter{w: bufio.NewWriterSize(w, 64<<10)}
	if _, err := rl.WriteTo(out); err != nil && out.err == nil {
		rl = failed(fmt.Errorf("cannot write the output: %w", err))
		if _, err := rl.WriteTo(out); err != nil && out.err == nil {
			return rl, err
		}
	}
	if out.err != nil {
		return rl, out.err
	}
	return rl, out.w.Flush()
}

// stickyWriter remembers the first error of its writer.
type stickyWriter struct {
	w   *bufio.Writer
	err error
}

func (s *stickyWriter) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(b)
	s.err = err
	return n, err
}

// Usage returns a function's README as its --help text, led by its name.
func Usage(readme []byte) string {
	return string(bytes.TrimSpace(readme)) + "\n"
}

// Identity is a function that changes nothing: the baseline benchmarks
// compare the functions with (the cost of reading and writing the list).
var Identity = Function{Name: "identity", Run: func(*resourcelist.ResourceList, Env) error { return nil }}
