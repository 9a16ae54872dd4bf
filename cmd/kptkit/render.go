package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/builtinfn"
	"github.com/kptkit/kptkit/internal/fnexec"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
)

var renderCommand = &command{
	name:     "render",
	summary:  "run a package's Kptfile pipelines in one process, as kpt fn render (render --help)",
	synopsis: "[PKG] [flags]",
	help:     renderHelp,
	run:      runRender,
}

const renderHelp = `Runs the Kptfile pipelines of the package tree in PKG (default .) as
kpt fn render does — subpackages first, mutators then validators — and writes
the package back in place, only when every step passed. Files no function
changed keep their bytes.

Each pipeline entry runs:
  1. kptkit's own functions (ghcr.io/kptkit/<function>, --builtin-prefix, or
     an exec: that is a kptkit binary) in this process, sharing the parsed items;
  2. the built-in catalog functions (apply-replacements v0.1.1, apply-setters
     v0.2.0, set-namespace v0.4.1, starlark v0.4.3 from
     ghcr.io/kptdev/krm-functions-catalog/ or gcr.io/kpt-fn/ at their version
     or its vX.Y alias) in this process, without environment or network;
  3. other exec: entries as a process (only with --allow-exec);
  4. other images in docker or podman, when one answers (--network none).

Each step is bounded: one that runs longer than --step-timeout fails (its
process group killed: starlark, exec:, a container's engine client, and the
container through its engine; a step of kptkit's own functions or of the
other built-ins is abandoned, its result ignored), and a starlark or exec:
process may map at most --step-memory for its data. Starlark runs in a child
process of kptkit for this.
`

// renderFlags are kptkit render's flags.
type renderFlags struct {
	allowExec  bool
	resultsDir string
	output     string
	prefixes   listFlag
	execFor    *pairFlag
	truncate   bool
	limits     *limitFlags
	wait       time.Duration
}

// isolate empties the process environment for the built-ins and returns
// what it held (tests replace it: they run in one process).
var isolate = builtinfn.Isolate

func runRender(c *call, args []string) error {
	fs := c.flags()
	f := renderFlags{execFor: newPairFlag("IMAGE=PATH")}
	fs.BoolVar(&f.allowExec, "allow-exec", false, "allow exec: functions (as kpt: without it an exec: entry fails; kptkit's own binaries then run in process)")
	fs.StringVar(&f.resultsDir, "results-dir", "", "write the function results to `DIR`/results.yaml")
	fs.StringVar(&f.output, "output", "", "write the rendered resources to `OUT` instead of in place: stdout (a ResourceList), unwrap (the resources) or a new folder")
	fs.StringVar(&f.output, "o", "", "short for --output `OUT`: stdout, unwrap or a new folder")
	fs.Var(&f.prefixes, "builtin-prefix", "an image `PREFIX` (such as ghcr.io/me/kptkit) whose <prefix>/<function> images are kptkit's functions (repeatable)")
	fs.BoolVar(&f.truncate, "truncate-output", true, "show at most 4 lines of a function's results and stderr")
	fs.Var(f.execFor, "exec-for", "run `IMAGE=PATH`: the image (with a tag, or any tag) with the binary PATH instead (repeatable)")
	f.limits = addStepLimits(fs)
	fs.DurationVar(&f.wait, "wait", 0, "wait up to `DURATION` for another run writing the package to end (default: fail at once)")
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	if _, err := f.limits.limits(); err != nil {
		return usageError{err}
	}
	pkg := "."
	if fs.NArg() == 1 {
		pkg = fs.Arg(0)
	}
	err := renderPackage(pkg, f, c.stdout, c.stderr)
	if errors.Is(err, errReported) {
		return exitCode(1)
	}
	return err
}

// errReported is a failure already printed.
var errReported = errors.New("reported")

func renderPackage(pkg string, f renderFlags, stdout, stderr io.Writer) error {
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return err
	}
	dest := f.output
	if dest != "" && dest != "stdout" && dest != "unwrap" {
		if _, err := os.Stat(dest); err == nil || !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("directory %q already exists, please delete the directory and retry", dest)
		}
	}
	execFor := f.execFor.m
	var inPlace *pkgfs.Out
	if dest == "" {
		// One run writes a package at a time: the lock is held from the
		// read to the write.
		if inPlace, err = pkgfs.Open(abs, pkgfs.Options{Wait: f.wait}); err != nil {
			return lockHint(err)
		}
		defer inPlace.Close()
	}
	files, err := readPackage(inPlace, abs)
	if err != nil {
		return err
	}
	env := isolate()
	// A render makes much short-lived garbage (every SDK step writes and
	// parses its items): collect less often, within a bound.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(4 << 30)
	limits, _ := f.limits.limits()
	runtime := newRuntime(env, f.prefixes, execFor, limits)
	p := &renderLog{w: stderr, truncate: f.truncate}
	out := render.Render(render.Input{Files: files}, render.Options{
		Runtime:   runtime,
		Env:       hostEnv(env),
		AllowExec: f.allowExec,
		Path:      abs,
		Progress:  p.event,
		Watch:     watch(limits),
	})
	if err := writeResults(f.resultsDir, out.Results); err != nil {
		return err
	}
	if out.Failure != nil {
		p.results(f.resultsDir)
		if p.failedStep {
			return errReported
		}
		return out.Failure
	}
	switch dest {
	case "":
		if _, err := inPlace.Write(".", files, out.Files); err != nil {
			return fmt.Errorf("failed to save resources: %w", err)
		}
		fmt.Fprintf(stderr, "Successfully executed %d function(s) in %d package(s).\n", out.Executed, out.Packages)
	case "stdout", "unwrap":
		if err := writeItems(stdout, out.Items, dest == "unwrap"); err != nil {
			return err
		}
	default:
		if err := pkgfs.Write(dest, nil, itemFiles(out)); err != nil {
			return err
		}
	}
	p.results(f.resultsDir)
	return nil
}

// newRuntime puts the runners in their order: --exec-for, kptkit's own
// functions, the built-in catalog functions, exec, container engines; each
// run within limits.
func newRuntime(env []string, prefixes []string, execFor map[string]string, limits bounded.Limits) render.Runtime {
	exe := self()
	ex := &fnexec.Exec{Functions: registry, Env: env, Limits: limits, Self: exe}
	return render.Runtimes{
		&fnexec.ExecFor{Exec: ex, Images: execFor},
		render.Functions{Functions: registry, Prefixes: prefixes},
		&builtinfn.Runtime{Limits: limits, Self: exe},
		ex,
		&fnexec.Container{Env: env, Limits: limits},
	}
}

// hostEnv is what kptkit's own functions see: the environment kpt would
// have given their binaries, and the clock.
func hostEnv(env []string) krmfn.Env {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return krmfn.Env{Now: time.Now, Getenv: func(k string) string { return vars[k] }}
}

// readPackage reads the package tree in dir: through the folder opened to
// write it back in place, or as it is.
func readPackage(o *pkgfs.Out, dir string) (kptpkg.Files, error) {
	if o == nil {
		return pkgfs.Read(dir)
	}
	files, err := o.Read(".")
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", dir, err)
	}
	return files, nil
}

// writeResults writes results.yaml into dir (made if needed) whole
// (pkgfs.WriteFile).
func writeResults(dir string, rl render.ResultList) error {
	if dir == "" {
		return nil
	}
	b, err := rl.Encode()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot read or create results dir %q: %w", dir, err)
	}
	_, err = pkgfs.WriteFile(filepath.Join(dir, "results.yaml"), b)
	return err
}

// writeItems writes the rendered items as kpt's -o stdout (a ResourceList
// with their annotations) or -o unwrap (the resources) does.
func writeItems(w io.Writer, items []*yaml.RNode, unwrap bool) error {
	if !unwrap {
		return kio.ByteWriter{Writer: w, KeepReaderAnnotations: true,
			WrappingAPIVersion: kio.ResourceListAPIVersion, WrappingKind: kio.ResourceListKind}.Write(items)
	}
	return kio.ByteWriter{Writer: w, ClearAnnotations: []string{kioutil.IndexAnnotation, kioutil.PathAnnotation,
		kioutil.LegacyIndexAnnotation, kioutil.LegacyPathAnnotation}}.Write(items) //nolint:staticcheck // kpt clears both
}

// itemFiles are the files -o DIR writes: those holding rendered items.
func itemFiles(out render.Output) kptpkg.Files {
	files := kptpkg.Files{}
	for _, n := range out.Items {
		p, _ := kptpkg.FileAnnotations(n)
		if b, ok := out.Files[p]; ok {
			files[p] = b
		}
	}
	return files
}
