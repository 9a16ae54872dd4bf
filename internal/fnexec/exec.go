// Package fnexec is where pipeline entries meet processes: an `exec:` entry
// (or an image handed a binary with --exec-for) goes in, a render.Runner
// comes out — kptkit's own function in process when the binary is a kptkit
// function binary (known by its Go build information, never by its name),
// else a subprocess; and images run in a container engine when one
// answers.
package fnexec

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
)

// module is kptkit's Go module path.
const module = "github.com/kptkit/kptkit"

// Exec runs `exec:` entries: kptkit function binaries in process, anything
// else as a subprocess. Safe for concurrent use; what a binary is is
// remembered per file (path, size and time).
type Exec struct {
	// Functions are kptkit's functions, by name (the registry).
	Functions []krmfn.Function
	// Env is the environment of subprocesses and of PATH look-ups (kpt
	// gives exec functions its own).
	Env []string
	// Dir is the folder relative exec paths are resolved against (kpt: its
	// working folder); "" for the working folder.
	Dir string
	// Limits bound each run of a subprocess: its time, and its memory
	// (set by Self, kptkit's binary, before it becomes the function).
	Limits bounded.Limits
	Self   string

	known sync.Map // fileKey → *krmfn.Function (nil: not ours)
}

type fileKey struct {
	path string
	size int64
	mod  time.Time
}

// Runner implements render.Runtime for exec entries.
func (e *Exec) Runner(fn render.Function) (render.Runner, error) {
	if fn.Exec == "" {
		return nil, &render.Unhandled{}
	}
	return e.Command(fn.Exec)
}

// Command returns the runner of an exec command line: kptkit's function in
// process when the binary is one of kptkit's, else the binary itself.
func (e *Exec) Command(command string) (render.Runner, error) {
	args, err := splitCommand(command)
	if err != nil || len(args) == 0 {
		return nil, fmt.Errorf("exec command %q must be valid: %v", command, err)
	}
	path, err := e.lookPath(args[0])
	if err != nil {
		return nil, err
	}
	if f := e.identify(path, args); f != nil {
		return render.InProcess{Function: *f}, nil
	}
	return &Process{Path: path, Args: args[1:], Env: e.Env, Limits: e.Limits, Self: e.Self}, nil
}

// lookPath finds a command as kpt (os/exec) does: a name without a slash
// on PATH, a path relative to the working folder.
func (e *Exec) lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) && e.Dir != "" {
			name = filepath.Join(e.Dir, name)
		}
		return name, nil
	}
	for _, dir := range filepath.SplitList(envValue(e.Env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
}

// identify returns the kptkit function a command runs, or nil: the binary
// is one of kptkit's (by its Go build information) of this build's version,
// and the command gives it no arguments beyond a function's name.
func (e *Exec) identify(path string, args []string) *krmfn.Function {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	key := fileKey{path, info.Size(), info.ModTime()}
	if v, ok := e.known.Load(key); ok {
		return pick(v.(*identity), args, e.Functions)
	}
	id := readIdentity(path)
	e.known.Store(key, id)
	return pick(id, args, e.Functions)
}

// identity is what a binary's build information says it is.
type identity struct {
	ours     bool
	function string // the one function of a function binary; "" for kptkit
}

func readIdentity(path string) *identity {
	bi, err := buildinfo.ReadFile(path)
	if err != nil || bi.Main.Path != module || !sameBuild(bi) {
		return &identity{}
	}
	if bi.Path == module+"/cmd/kptkit" {
		return &identity{ours: true}
	}
	if name, ok := strings.CutPrefix(bi.Path, module+"/functions/"); ok && !strings.Contains(name, "/") {
		return &identity{ours: true, function: name}
	}
	return &identity{}
}

// sameBuild reports whether the binary is of this program's version, when
// both know theirs (a different version runs as itself).
func sameBuild(bi *debug.BuildInfo) bool {
	self, ok := debug.ReadBuildInfo()
	if !ok {
		return true
	}
	known := func(v string) bool { return v != "" && v != "(devel)" }
	if known(bi.Main.Version) && known(self.Main.Version) && bi.Main.Version != self.Main.Version {
		return false
	}
	return setting(bi, "vcs.revision") == "" || setting(self, "vcs.revision") == "" ||
		setting(bi, "vcs.revision") == setting(self, "vcs.revision")
}

func setting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// pick returns the function a kptkit binary runs with these arguments.
func pick(id *identity, args []string, fns []krmfn.Function) *krmfn.Function {
	if !id.ours {
		return nil
	}
	name := id.function
	switch {
	case name != "" && len(args) == 1:
	case name != "":
		return nil
	case len(args) == 1: // kptkit under a function's name is that function
		name = filepath.Base(args[0])
	case len(args) == 2: // kptkit <function>
		name = args[1]
	default:
		return nil
	}
	for i := range fns {
		if fns[i].Name == name {
			return &fns[i]
		}
	}
	return nil
}

// Process runs a function binary as kpt does: the ResourceList on stdin,
// the output from stdout, stderr kept; within Limits (the process group
// killed at the time limit; the memory limit set by Self, kptkit's binary,
// before it becomes the function).
type Process struct {
	Path   string
	Args   []string
	Env    []string // nil: this process's
	Limits bounded.Limits
	Self   string
}

// Run implements render.Runner.
func (p *Process) Run(in []byte) ([]byte, render.Exit, error) {
	return p.run(p.Args, in, nil, false)
}

// run runs the binary with args; onTimeout runs when its time is up;
// engine drops a container engine's pull progress from stderr. A function
// that hit a limit is an *bounded.Exceeded error, with what it wrote on
// stderr.
func (p *Process) run(args []string, in []byte, onTimeout func(), engine bool) ([]byte, render.Exit, error) {
	cmd := bounded.Cmd{Path: p.Path, Args: args, Env: p.Env, Limits: p.Limits, Self: p.Self, OnTimeout: onTimeout, MaxStdout: krmfn.DefaultMaxInput}
	res, err := cmd.Run(in)
	exit := render.Exit{Code: res.Code, Stderr: string(res.Stderr)}
	if engine {
		exit.Stderr = filterEngine(exit.Stderr)
	}
	var exceeded *bounded.Exceeded
	switch {
	case errors.As(err, &exceeded):
		return nil, render.Exit{Stderr: exit.Stderr}, err
	case err != nil:
		return nil, render.Exit{}, fmt.Errorf("unexpected function error: %w", err)
	}
	return res.Stdout, exit, nil
}

// envValue reads a variable from an environment list.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// splitCommand splits a command line as a POSIX shell does words: blanks
// separate, quotes group, a backslash escapes.
func splitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quote := false, rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				w.WriteRune(c)
			}
		case c == '\\':
			if i+1 >= len(rs) {
				return nil, errors.New("EOF found after escape character")
			}
			i++
			if quote != '"' || strings.ContainsRune("\\\"$`\n", rs[i]) {
				w.WriteRune(rs[i])
			} else {
				w.WriteRune(c)
				w.WriteRune(rs[i])
			}
			inWord = true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				w.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("EOF found when expecting closing quote")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// ExecFor runs images with binaries, as --exec-for IMAGE=PATH asks: an
// entry whose image is IMAGE, or whose repository is IMAGE when IMAGE has
// no tag, runs the command PATH (kptkit's binaries in process).
type ExecFor struct {
	Exec   *Exec
	Images map[string]string
}

// Runner implements render.Runtime.
func (x *ExecFor) Runner(fn render.Function) (render.Runner, error) {
	if fn.Image == "" || len(x.Images) == 0 {
		return nil, &render.Unhandled{}
	}
	command, ok := x.Images[fn.Image]
	if !ok {
		command, ok = x.Images[render.ParseImage(fn.Image).Repository]
	}
	if !ok {
		return nil, &render.Unhandled{}
	}
	return x.Exec.Command(command)
}
