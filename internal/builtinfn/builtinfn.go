// Package builtinfn links functions of the kpt function catalog into the
// kptkit binary and runs them as Porch's builtin runtime does: a pipeline
// entry naming one's image (ghcr.io/kptdev/krm-functions-catalog/ or
// gcr.io/kpt-fn/, at the linked version) goes in, a render.Runner that
// runs the catalog's own Go code through the SDK it is written for comes
// out — in process, or, for starlark, whose interpreter nothing in this
// process can stop or bound, in a child process of kptkit (Works). Only
// cmd/kptkit imports it: the function binaries stay small.
package builtinfn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	starlib "github.com/qri-io/starlib/http"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/render"
)

// Module is the Go module path of a catalog function: Module + "/" + name.
const Module = "github.com/GoogleContainerTools/kpt-functions-catalog/functions/go"

// Repositories are the image repositories of the catalog's functions.
var Repositories = []string{"ghcr.io/kptdev/krm-functions-catalog", "gcr.io/kpt-fn"}

// Function is a catalog function linked into this binary.
type Function struct {
	Name    string
	Version *semver.Version // the linked version (its module's)
	// Run runs the function over a ResourceList as its image's main does.
	Run func(in []byte) ([]byte, render.Exit)
	// child: the function runs in a child process of kptkit (starlark: an
	// interpreter that may loop or allocate without end, under a global
	// lock of its own, that nothing in this process can stop).
	child bool
}

// Functions are the linked functions, by name.
var Functions = []*Function{
	{Name: "apply-replacements", Version: semver.MustParse("v0.1.1"), Run: sdkRun(applyReplacementsFast)},
	{Name: "apply-setters", Version: semver.MustParse("v0.2.0"), Run: applySetters},
	{Name: "set-namespace", Version: semver.MustParse("v0.4.1"), Run: sdkRun(setNamespace)},
	{Name: "starlark", Version: semver.MustParse("v0.4.3"), Run: sdkRun(starlarkProcess), child: true},
}

// Works are the functions that run in a child process, as the child runs
// them (bounded.Main): a ResourceList on stdin, the function's output on
// stdout, its stderr and exit code.
func Works() map[string]bounded.Work {
	works := map[string]bounded.Work{}
	for _, f := range Functions {
		if f.child {
			works[f.Name] = runner{f: f}.work
		}
	}
	return works
}

func init() {
	// Built-ins have no network: starlark's http module refuses every
	// request (the images run with --network none).
	starlib.Guard = noNetwork{}
}

// Runtime runs the linked functions for the images that ask for them.
// Safe for concurrent use; it remembers its answer for each entry.
type Runtime struct {
	// Limits bound each run: a child's time and memory; the time a run in
	// process is waited for (after which it is abandoned, still running).
	Limits bounded.Limits
	// Self is kptkit's binary, whose children run starlark; "" for this
	// process's executable.
	Self string

	cache sync.Map // key → answer
	self  struct {
		once sync.Once
		path string
		err  error
	}
}

type answer struct {
	runner render.Runner
	err    error
}

// Runner implements render.Runtime.
func (rt *Runtime) Runner(fn render.Function) (render.Runner, error) {
	key := fn.Image + "\x00" + fn.Tag
	if a, ok := rt.cache.Load(key); ok {
		return a.(answer).runner, a.(answer).err
	}
	r, err := rt.lookup(fn)
	rt.cache.Store(key, answer{r, err})
	return r, err
}

// lookup finds the linked function an entry asks for.
func (rt *Runtime) lookup(fn render.Function) (render.Runner, error) {
	if fn.Image == "" {
		return nil, &render.Unhandled{}
	}
	repo := render.ParseImage(fn.Image).Repository
	var name string
	for _, r := range Repositories {
		if n, ok := strings.CutPrefix(repo, r+"/"); ok {
			name = n
		}
	}
	if name == "" {
		return nil, &render.Unhandled{}
	}
	i := slices.IndexFunc(Functions, func(f *Function) bool { return f.Name == name })
	if i < 0 {
		return nil, &render.Unhandled{Reason: fmt.Sprintf("%s is not built in (built in: %s)", name, names())}
	}
	f := Functions[i]
	if ok, why := fn.Version(f.Version); !ok {
		return nil, &render.Unhandled{Reason: why}
	}
	return runner{f: f, rt: rt}, nil
}

func names() string {
	var ns []string
	for _, f := range Functions {
		ns = append(ns, f.Name+" v"+f.Version.String())
	}
	return strings.Join(ns, ", ")
}

// runner runs one linked function within its runtime's Limits: in a
// child process, or in this process, waited for up to the time limit; a
// panic is an error result.
type runner struct {
	f  *Function
	rt *Runtime
}

func (r runner) Run(in []byte) ([]byte, render.Exit, error) {
	if r.f.child {
		return r.inChild(in)
	}
	// The work's own variables: an abandoned run writes them late.
	var out []byte
	var exit render.Exit
	if err := bounded.Wait(r.rt.Limits, func() { out, exit = r.run(in) }); err != nil {
		return nil, render.Exit{}, err
	}
	return out, exit, nil
}

// run runs the function in this process, a panic made an error result.
func (r runner) run(in []byte) (out []byte, exit render.Exit) {
	defer func() {
		if p := recover(); p != nil {
			out, exit = panicked(in, r.f.Name, p)
		}
	}()
	return r.f.Run(in)
}

// inChild runs the function in a child process of kptkit (work is the
// child's side), with no environment.
func (r runner) inChild(in []byte) ([]byte, render.Exit, error) {
	self, err := r.rt.executable()
	if err != nil {
		return nil, render.Exit{}, err
	}
	res, err := bounded.Child(self, r.f.Name, nil, r.rt.Limits).Run(in)
	exit := render.Exit{Code: res.Code, Stderr: string(res.Stderr)}
	var exceeded *bounded.Exceeded
	switch {
	case errors.As(err, &exceeded):
		return nil, render.Exit{}, err
	case err != nil:
		return nil, render.Exit{}, fmt.Errorf("cannot run %s in a child process: %w", r.f.Name, err)
	}
	return res.Stdout, exit, nil
}

// work is the child's side of inChild.
func (r runner) work(_ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	in, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "cannot read the ResourceList: %v\n", err)
		return 1
	}
	out, exit := r.run(in)
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "cannot write the ResourceList: %v\n", err)
		return 1
	}
	_, _ = io.WriteString(stderr, exit.Stderr)
	return exit.Code
}

// executable is Self, or this process's executable.
func (rt *Runtime) executable() (string, error) {
	if rt.Self != "" {
		return rt.Self, nil
	}
	rt.self.once.Do(func() {
		if rt.self.path, rt.self.err = os.Executable(); rt.self.err != nil {
			rt.self.err = fmt.Errorf("cannot find kptkit's binary to run a child process: %w", rt.self.err)
		}
	})
	return rt.self.path, rt.self.err
}

// Isolate empties this process's environment, so that the built-ins see
// none (a child running starlark is given none either), and returns what
// it held for the runners that start processes. Call it once, before any
// render.
func Isolate() []string {
	env := os.Environ()
	os.Clearenv()
	return env
}
