package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/builtinfn"
	"github.com/kptkit/kptkit/internal/fnexec"
	"github.com/kptkit/kptkit/internal/fnrunner"
	"github.com/kptkit/kptkit/pkg/render"
)

var functionRunnerCommand = &command{
	name:     "function-runner",
	summary:  "serve Porch's function runner API (FunctionEvaluator, gRPC) with kptkit's functions and built-ins (function-runner --help)",
	synopsis: "[--port 9445 | --address HOST:PORT] [flags]",
	help:     functionRunnerHelp,
	run:      runFunctionRunner,
}

const functionRunnerHelp = `Serves the API porch-server calls its function runner through (Porch's
evaluator.FunctionEvaluator, gRPC in plain text) and the standard gRPC
health service. Point porch-server's --function-runner at it.

Each call names its function by image alone (a call carries no Kptfile
tag:); it runs, in this process:
  1. --exec-for IMAGE=PATH: the binary PATH;
  2. kptkit's own functions (ghcr.io/kptkit/<function>, --builtin-prefix);
  3. the built-in catalog functions (apply-replacements v0.1.1, apply-setters
     v0.2.0, set-namespace v0.4.1, starlark v0.4.3 from
     ghcr.io/kptdev/krm-functions-catalog/ or gcr.io/kpt-fn/ at their version
     or its vX.Y alias), without environment or network.
A bare name:tag is read as porch-server reads it:
ghcr.io/kptdev/krm-functions-catalog/name:tag. Any other image goes, as it
came, to --fallback (Porch's own function runner); without it, the answer is
NOT_FOUND. porch-server fails a render on any error: give --fallback.

The answer is what the function's binary writes: the ResourceList and its
stderr; a function that exits non-zero fails the call (INTERNAL, with its
results and stderr, in the words of Porch's function wrapper). Calls run in
parallel up to --jobs; others wait for a slot until their deadline. Each
runs within the caller's deadline and --step-timeout, --step-memory: a call
whose caller is gone keeps its slot until its function ends (a process is
killed at --step-timeout; kptkit's functions and the built-ins in this
process are abandoned there), and the health service says NOT_SERVING
while every slot is so held. On SIGTERM the server takes no new call, says
NOT_SERVING and lets the calls in flight end for up to 25s.
`

// functionRunnerFlags are kptkit function-runner's flags.
type functionRunnerFlags struct {
	port     int
	address  string
	fallback string
	maxSize  bounded.Size
	jobs     int
	prefixes listFlag
	execFor  *pairFlag
	limits   *limitFlags
	listen   string // where to listen: --address, or :--port
}

func runFunctionRunner(c *call, args []string) error {
	f, err := parseFunctionRunner(c, args)
	if err != nil {
		return err
	}
	srv, err := newFunctionRunner(f, c.stderr)
	if err != nil {
		return err
	}
	defer srv.Close()
	lis, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", f.listen, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return srv.Serve(ctx, lis)
}

// parseFunctionRunner reads the flags; mistakes are usage errors.
func parseFunctionRunner(c *call, args []string) (functionRunnerFlags, error) {
	fs := c.flags()
	f := functionRunnerFlags{execFor: newPairFlag("IMAGE=PATH"), maxSize: fnrunner.DefaultMaxMessageSize}
	fs.IntVar(&f.port, "port", 9445, "listen on `PORT` of every address")
	fs.StringVar(&f.address, "address", "", "listen on `HOST:PORT` instead of --port")
	fs.StringVar(&f.fallback, "fallback", "", "send the calls for other images to Porch's function runner at `HOST:PORT`")
	fs.Var(&f.maxSize, "max-request-body-size", "the largest request and answer, `SIZE` such as 6MiB or 6291456 (Porch's flag; keep it in sync with porch-server's)")
	fs.IntVar(&f.jobs, "jobs", 0, "`N` calls run at once; others wait for a slot (default: the cores this process may use, as GOMAXPROCS: a container's CPU limit counts)")
	fs.Var(&f.prefixes, "builtin-prefix", "an image `PREFIX` (such as ghcr.io/me/kptkit) whose <prefix>/<function> images are kptkit's functions (repeatable)")
	fs.Var(f.execFor, "exec-for", "run `IMAGE=PATH`: the image (with a tag, or any tag) with the binary PATH instead (repeatable)")
	f.limits = addStepLimits(fs)
	if err := c.parse(fs, args, 0); err != nil {
		return f, err
	}
	var err error
	if f.listen, err = f.listenAddress(fs); err != nil {
		return f, usageError{err}
	}
	return f, f.check()
}

// listenAddress is where to listen: --address, or --port on every
// address; not both.
func (f functionRunnerFlags) listenAddress(fs *flag.FlagSet) (string, error) {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	switch {
	case given["port"] && given["address"]:
		return "", fmt.Errorf("give --port or --address, not both")
	case f.address != "":
		return f.address, nil
	case f.port <= 0 || f.port > 65535:
		return "", fmt.Errorf("--port %d: want a port from 1 to 65535", f.port)
	}
	return ":" + strconv.Itoa(f.port), nil
}

// check refuses the flags' values that make no server.
func (f *functionRunnerFlags) check() error {
	if _, err := f.limits.limits(); err != nil {
		return usageError{err}
	}
	switch {
	case f.jobs < 0:
		return usageErrorf("--jobs %d: want a number of calls, or 0 for the cores this process may use", f.jobs)
	case f.maxSize < 1 || f.maxSize >= 2<<30:
		return usageErrorf("--max-request-body-size %s: want at least 1 byte and less than 2GiB", f.maxSize)
	case f.jobs == 0:
		f.jobs = runtime.GOMAXPROCS(0)
	}
	return nil
}

// newFunctionRunner makes the server of the flags: kptkit's runtime as
// kptkit render builds it, without exec: entries and container engines (a
// call names an image, and the server runs no containers).
func newFunctionRunner(f functionRunnerFlags, log io.Writer) (*fnrunner.Server, error) {
	limits, _ := f.limits.limits()
	env := isolate()
	exe := self()
	ex := &fnexec.Exec{Functions: registry, Env: env, Limits: limits, Self: exe}
	return fnrunner.New(fnrunner.Options{
		Runtime: render.Runtimes{
			&fnexec.ExecFor{Exec: ex, Images: f.execFor.m},
			render.Functions{Functions: registry, Prefixes: f.prefixes, Env: hostEnv(env)},
			&builtinfn.Runtime{Limits: limits, Self: exe},
		},
		Env:            hostEnv(env),
		Limits:         limits,
		Jobs:           f.jobs,
		MaxMessageSize: int(f.maxSize),
		Fallback:       f.fallback,
		Log:            log,
	})
}
