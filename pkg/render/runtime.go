package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/result"
)

// Runtime picks the runner for one pipeline entry. Safe for concurrent use;
// a Runtime caches what it resolves.
type Runtime interface {
	// Runner returns the runner for fn, or an *Unhandled error when this
	// runtime does not run it (so that the next one in Runtimes is asked).
	Runner(fn Function) (Runner, error)
}

// Runner runs one step over a ResourceList given as YAML and returns the
// ResourceList the function wrote, and how it exited (a code and what it
// wrote on stderr, as a process would). err is for a function that could
// not be run at all (its image is missing, no container engine answers).
//
// A Runner that is also an InProcess runs kptkit's own function on the
// parsed items instead, with no YAML between steps.
type Runner interface {
	Run(in []byte) (out []byte, exit Exit, err error)
}

// Exit is how a function ended: its exit code (0 for success) and what it
// wrote on stderr.
type Exit struct {
	Code   int
	Stderr string
}

// ExitError is a function that exited with a non-zero code.
type ExitError struct{ Exit }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// InProcess runs a kptkit function in this process. Render gives it the
// parsed items (shared with the steps before and after); Run is for callers
// that hold bytes.
type InProcess struct {
	Function krmfn.Function
	Env      krmfn.Env
}

// Run runs the function over a ResourceList's bytes, as its binary would.
func (p InProcess) Run(in []byte) ([]byte, Exit, error) {
	return p.AppendRun(nil, in)
}

// AppendRun is Run, the output appended to dst (a buffer the caller keeps
// from call to call).
func (p InProcess) AppendRun(dst, in []byte) ([]byte, Exit, error) {
	out, results := krmfn.AppendProcess(dst, p.Function, in, p.Env)
	return out, exitOf(p.Function, results), nil
}

// exitOf is how a kptkit function's binary ends with these results: code 1
// and each error on stderr when there is one (krmfn.Main).
func exitOf(f krmfn.Function, results result.List) Exit {
	if !results.HasError() {
		return Exit{}
	}
	return Exit{Code: 1, Stderr: krmfn.Stderr(f, results)}
}

// Unhandled is returned by a Runtime that does not run a function; Reason
// says why when that is worth telling (a built-in of another version).
type Unhandled struct{ Reason string }

func (u *Unhandled) Error() string {
	if u.Reason == "" {
		return "not handled"
	}
	return u.Reason
}

// Runtimes asks each runtime in turn; the first that does not answer
// Unhandled decides. Reasons given on the way are added to the last error.
type Runtimes []Runtime

// Runner implements Runtime.
func (rs Runtimes) Runner(fn Function) (Runner, error) {
	var reasons []string
	for _, r := range rs {
		if r == nil {
			continue
		}
		run, err := r.Runner(fn)
		var u *Unhandled
		switch {
		case err == nil:
			return run, nil
		case errors.As(err, &u):
			if u.Reason != "" {
				reasons = append(reasons, u.Reason)
			}
		default:
			if len(reasons) > 0 {
				return nil, fmt.Errorf("%w (%s)", err, strings.Join(reasons, "; "))
			}
			return nil, err
		}
	}
	if len(reasons) > 0 {
		return nil, fmt.Errorf("no runtime runs %s: %s", fn.String(), strings.Join(reasons, "; "))
	}
	return nil, fmt.Errorf("no runtime runs %s", fn.String())
}
