// Package catalog links functions of the kpt function catalog into the
// kptkit binary and runs them in process, as Porch's builtin runtime does:
// a pipeline entry naming one's image (ghcr.io/kptdev/krm-functions-catalog/
// or gcr.io/kpt-fn/, at the linked version) goes in, a render.Runner that
// runs the catalog's own Go code through the SDK it is written for comes
// out. Only cmd/kptkit imports it: the function binaries stay small.
package catalog

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	starlib "github.com/qri-io/starlib/http"

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
	// serial makes runs one at a time (starlark sets globals on every run).
	serial *sync.Mutex
}

// Functions are the linked functions, by name.
var Functions = []*Function{
	{Name: "apply-replacements", Version: semver.MustParse("v0.1.1"), Run: sdkRun(applyReplacementsFast)},
	{Name: "apply-setters", Version: semver.MustParse("v0.2.0"), Run: applySetters},
	{Name: "set-namespace", Version: semver.MustParse("v0.4.1"), Run: sdkRun(setNamespace)},
	{Name: "starlark", Version: semver.MustParse("v0.4.3"), Run: sdkRun(starlarkProcess), serial: &sync.Mutex{}},
}

func init() {
	// Built-ins have no network: starlark's http module refuses every
	// request (the images run with --network none).
	starlib.Guard = noNetwork{}
}

// Runtime runs the linked functions for the images that ask for them.
// Safe for concurrent use; it remembers its answer for each entry.
type Runtime struct {
	cache sync.Map // key → answer
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
	r, err := lookup(fn)
	rt.cache.Store(key, answer{r, err})
	return r, err
}

// lookup finds the linked function an entry asks for.
func lookup(fn render.Function) (render.Runner, error) {
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
	return runner{f}, nil
}

func names() string {
	var ns []string
	for _, f := range Functions {
		ns = append(ns, f.Name+" v"+f.Version.String())
	}
	return strings.Join(ns, ", ")
}

// runner runs one linked function; a panic is an error result.
type runner struct{ f *Function }

func (r runner) Run(in []byte) (out []byte, exit render.Exit, err error) {
	if r.f.serial != nil {
		r.f.serial.Lock()
		defer r.f.serial.Unlock()
	}
	defer func() {
		if p := recover(); p != nil {
			out, exit = panicked(in, r.f.Name, p)
		}
	}()
	out, exit = r.f.Run(in)
	return out, exit, nil
}

// Isolate empties this process's environment, so that the built-ins see
// none (starlark's ctx.environment reads it), and returns what it held for
// the runners that start processes. Call it once, before any render.
func Isolate() []string {
	env := os.Environ()
	os.Clearenv()
	return env
}
