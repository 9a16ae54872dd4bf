package fnexec

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/render"
)

var registry = []krmfn.Function{pkgcontext.Function, inject.Function}

func TestMain(m *testing.M) {
	// This test binary is kptkit's trampoline that sets a memory limit.
	if len(os.Args) > 1 && os.Args[1] == bounded.Arg {
		os.Exit(bounded.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, nil))
	}
	os.Exit(m.Run())
}

func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

var limits = bounded.Limits{Time: 2 * time.Second, Memory: 256 << 20, TimeFlag: "--step-timeout", MemoryFlag: "--step-memory"}

// TestExecTimeout: an exec function that never ends fails at the time
// limit, and no process it started survives it.
func TestExecTimeout(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	e := &Exec{Env: []string{"PATH=/usr/bin:/bin"}, Limits: limits, Self: self(t)}
	r, err := e.Command("sh -c 'sleep 1000 & echo $$ $! > " + pids + "; sleep 1000'")
	if err != nil {
		t.Fatal(err)
	}
	want := &Process{Args: []string{"-c", "sleep 1000 & echo $$ $! > " + pids + "; sleep 1000"}, Env: e.Env, Limits: limits, Self: e.Self}
	if diff := cmp.Diff(want, r, cmpopts.IgnoreFields(Process{}, "Path")); diff != "" {
		t.Errorf("runner (-want +got):\n%s", diff)
	}
	_, _, err = r.Run(nil)
	if err == nil || err.Error() != "timed out after 2s (--step-timeout)" {
		t.Errorf("got %v", err)
	}
	checkGone(t, pids)
}

// checkGone fails for each process named in the file that still runs.
func checkGone(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		for i := 0; ; i++ {
			stat, err := os.ReadFile("/proc/" + f + "/stat")
			if err != nil || syscall.Kill(pid, 0) != nil || strings.Contains(string(stat), ") Z ") {
				break
			}
			if i == 100 {
				t.Errorf("process %d outlived the function", pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestContainerTimeout: an image that never ends fails at the time limit;
// the engine is told to kill its container, named at its start.
func TestContainerTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	engine := "#!/bin/sh\necho \"$@\" >> " + log + "\ncase $1 in run) echo $$ >> " + log + "; sleep 1000;; esac\n"
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(engine), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Container{Env: []string{"PATH=" + dir + ":/usr/bin:/bin"}, Limits: limits}
	r, err := c.Runner(render.Function{Image: "example.com/fn:v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r.Run([]byte("in"))
	if err == nil || err.Error() != "timed out after 2s (--step-timeout)" {
		t.Errorf("got %v", err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "run --name kptkit-") || lines[3] != "kill "+strings.Fields(lines[1])[2] {
		t.Fatalf("the engine was asked:\n%s\nwant info, run --name NAME ..., its pid, kill NAME", b)
	}
	if err := os.WriteFile(log+".pid", []byte(lines[2]), 0o644); err != nil {
		t.Fatal(err)
	}
	checkGone(t, log+".pid")
}

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"../../bin/fn", []string{"../../bin/fn"}, false},
		{"  fn  --a b\t'c d'  ", []string{"fn", "--a", "b", "c d"}, false},
		{`fn "a \"b\" $c" x\ y`, []string{"fn", `a "b" $c`, "x y"}, false},
		{`fn 'unterminated`, nil, true},
		{`fn \`, nil, true},
		{``, nil, false},
	}
	for _, tt := range tests {
		got, err := splitCommand(tt.in)
		if (err != nil) != tt.err || !cmp.Equal(got, tt.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestKptkitBinariesRunInProcess builds a function binary: it runs in
// process whatever its name; other binaries run as processes.
func TestKptkitBinariesRunInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "renamed")
	if out, err := exec.Command("go", "build", "-o", bin, "../../functions/set-package-context").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	e := &Exec{Functions: registry, Dir: dir, Env: []string{"PATH=" + dir}}
	for _, cmd := range []string{bin, "./renamed", "renamed"} {
		r, err := e.Command(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := r.(render.InProcess); !ok || p.Function.Name != "set-package-context" {
			t.Errorf("%s: got %T, want set-package-context in process", cmd, r)
		}
	}
	// With an argument the binary refuses, it runs as itself.
	if r, err := e.Command(bin + " --extra"); err != nil {
		t.Fatal(err)
	} else if _, ok := r.(*Process); !ok {
		t.Errorf("with arguments: got %T, want a process", r)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if r, err := e.Command(sh); err != nil {
		t.Fatal(err)
	} else if _, ok := r.(*Process); !ok {
		t.Errorf("sh: got %T, want a process", r)
	}
	if _, err := e.Command("not-there"); err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("a missing command: %v", err)
	}
}

func TestPick(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   identity
		args []string
		want string
	}{
		{identity{ours: true, function: "inject-config"}, []string{"/x/whatever"}, "inject-config"},
		{identity{ours: true, function: "inject-config"}, []string{"/x/whatever", "--help"}, ""},
		{identity{ours: true}, []string{"/x/set-package-context"}, "set-package-context"},
		{identity{ours: true}, []string{"/x/kptkit", "inject-config"}, "inject-config"},
		{identity{ours: true}, []string{"/x/kptkit"}, ""},
		{identity{ours: true}, []string{"/x/kptkit", "render"}, ""},
		{identity{}, []string{"/x/set-package-context"}, ""},
	}
	for _, tt := range tests {
		got := ""
		if f := pick(&tt.id, tt.args, registry); f != nil {
			got = f.Name
		}
		if got != tt.want {
			t.Errorf("pick(%+v, %q) = %q, want %q", tt.id, tt.args, got, tt.want)
		}
	}
}

func TestProcess(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	p := &Process{Path: sh, Args: []string{"-c", "cat; echo oops >&2; exit 3"}, Env: []string{}}
	out, exit, err := p.Run([]byte("in\n"))
	if err != nil || string(out) != "in\n" || exit != (render.Exit{Code: 3, Stderr: "oops\n"}) {
		t.Errorf("got %q, %+v, %v", out, exit, err)
	}
	p = &Process{Path: filepath.Join(t.TempDir(), "missing")}
	if _, _, err := p.Run(nil); err == nil || !strings.HasPrefix(err.Error(), "unexpected function error: ") {
		t.Errorf("a missing binary: %v", err)
	}
}

func TestContainerWithoutEngine(t *testing.T) {
	t.Parallel()
	fn := render.Function{Image: "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0"}
	silent := t.TempDir() // a docker whose daemon does not answer
	script := "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(silent, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"PATH=" + silent},
			"it needs a container engine: docker does not answer (Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?); " +
				"start docker or podman (KPT_FN_RUNTIME=podman), or give --exec-for IMAGE=PATH to run a binary of the function instead"},
		{[]string{"PATH=" + t.TempDir()},
			"it needs a container engine: docker is not installed; start docker or podman (KPT_FN_RUNTIME=podman), " +
				"or give --exec-for IMAGE=PATH to run a binary of the function instead"},
		{[]string{"KPT_FN_RUNTIME=rkt"},
			`it needs a container engine: unsupported runtime: "rkt" the runtime must be either docker or podman; start docker or podman (KPT_FN_RUNTIME=podman), ` +
				"or give --exec-for IMAGE=PATH to run a binary of the function instead"},
	}
	for _, tt := range tests {
		_, err := (&Container{Env: tt.env}).Runner(fn)
		if err == nil || err.Error() != tt.want {
			t.Errorf("env %q: got %v, want %q", tt.env, err, tt.want)
		}
	}
	_, err := (&Container{}).Runner(render.Function{Image: "x/y", Tag: "~1.2"})
	if err == nil || !strings.Contains(err.Error(), "version constraint") {
		t.Errorf("a tag constraint: %v", err)
	}
}

func TestExecFor(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	x := &ExecFor{Exec: &Exec{Env: os.Environ()}, Images: map[string]string{"example.com/fn": sh, "example.com/pinned:v1": sh}}
	for image, handled := range map[string]bool{
		"example.com/fn:v3": true, "example.com/fn": true, "example.com/pinned:v1": true, "example.com/pinned:v2": false, "other/fn": false,
	} {
		r, err := x.Runner(render.Function{Image: image})
		if got := err == nil && r != nil; got != handled {
			t.Errorf("%s: handled %v, want %v (%v)", image, got, handled, err)
		}
		if p, ok := r.(*Process); handled && (!ok || p.Path != sh) {
			t.Errorf("%s: runner %#v, want the process %s", image, r, sh)
		}
	}
}

// TestContainerIsolated: an image runs as kpt runs it — no network, no
// mounts, as nobody, no new privileges — with the ResourceList on stdin
// and its output read back from stdout.
func TestContainerIsolated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	engine := "#!/bin/sh\ncase $1 in run) echo \"$@\" > " + log + "; cat;; esac\n"
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(engine), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Container{Env: []string{"PATH=" + dir + ":/usr/bin:/bin"}, Limits: limits}
	r, err := c.Runner(render.Function{Image: "example.com/fn:v1"})
	if err != nil {
		t.Fatal(err)
	}
	out, exit, err := r.Run([]byte("items: []\n"))
	if err != nil || exit.Code != 0 || string(out) != "items: []\n" {
		t.Fatalf("got %q, %+v, %v", out, exit, err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(string(b))
	if len(args) > 2 && strings.HasPrefix(args[2], "kptkit-") {
		args[2] = "NAME"
	}
	want := []string{"run", "--name", "NAME", "--rm", "-i", "--network", "none", "--user", "nobody",
		"--security-opt=no-new-privileges", "--pull", "missing", "example.com/fn:v1"}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("the engine's arguments (-want +got):\n%s", diff)
	}
}
