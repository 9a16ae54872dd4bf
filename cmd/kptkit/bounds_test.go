package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// starlarkStep is a pipeline step running a starlark program.
func starlarkStep(program string) string {
	return "  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configMap:\n      source: |\n" +
		indentBy(program, "        ")
}

func indentBy(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

const (
	loopForever = "def f():\n  for i in range(1000000000):\n    pass\nf()\n"
	allocate    = "def f():\n  a = []\n  for i in range(1000000000):\n    a.append('x' * 100000 + str(i))\nf()\n"
)

func starlarkPkg(program string) kptpkg.Files {
	return kptpkg.Files{
		"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n" + starlarkStep(program)),
		"cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"),
	}
}

// TestRenderStepTimeout: an endless starlark loop fails the render at
// --step-timeout, naming the step, and nothing is written.
func TestRenderStepTimeout(t *testing.T) {
	t.Parallel()
	dir := writePkg(t, starlarkPkg(loopForever))
	before := snapshot(t, dir, "")
	code, stdout, stderr := kptkitRun("render", dir, "--step-timeout", "2s")
	want := "kptkit render: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3 (pipeline.mutators[0]) failed: timed out after 2s (--step-timeout)\n"
	if code != 1 || stdout != "" || !strings.HasSuffix(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant it to end with:\n%s", code, stdout, stderr, want)
	}
	if diff := cmp.Diff(before, snapshot(t, dir, "")); diff != "" {
		t.Errorf("the package changed (-before +after):\n%s", diff)
	}
}

// TestRenderExecTimeout: an exec function that never ends fails at
// --step-timeout, and no process it started survives.
func TestRenderExecTimeout(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	dir := writePkg(t, kptpkg.Files{
		"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n" +
			"  - exec: \"/bin/sh -c 'sleep 1000 & echo $$ $! > " + pids + "; sleep 1000'\"\n"),
	})
	code, _, stderr := kptkitRun("render", dir, "--allow-exec", "--step-timeout", "2s")
	if code != 1 || !strings.Contains(stderr, "(pipeline.mutators[0]) failed: timed out after 2s (--step-timeout)") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if running(pid) {
			t.Errorf("process %d of the exec function outlived it", pid)
		}
	}
}

// running: the process exists and is not a zombie, after a second's grace.
func running(pid int) bool {
	for range 100 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || syscall.Kill(pid, 0) != nil || bytes.Contains(stat, []byte(") Z ")) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// TestVariantsStepTimeout: of five variants, the one whose pipeline loops
// fails RenderFailed at --step-timeout; the four others are written, and
// the summary and the status file come out.
func TestVariantsStepTimeout(t *testing.T) {
	t.Parallel()
	var variants []string
	for i := 1; i <= 5; i++ {
		spec := fmt.Sprintf("  downstream: {repo: edge%02d, package: app}\n", i)
		if i == 3 {
			spec += "  pipeline:\n    mutators:\n" + indentBy(starlarkStep(loopForever), "  ")
		}
		variants = append(variants, pv(fmt.Sprintf("edge%02d", i), spec))
	}
	dir := workspace(t, map[string]string{"variants/pv.yaml": strings.Join(variants, "---\n")})
	code, stdout, stderr := kptkit(t, dir, "--render", "--step-timeout", "2s")
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	if diff := cmp.Diff([]string{"edge01/app", "edge02/app", "edge04/app", "edge05/app"}, packages(t, dir)); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
	msg := "ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3 (pipeline.mutators[0]) failed: timed out after 2s (--step-timeout)"
	if !strings.Contains(stdout, "5 variants rendered into "+filepath.Join(dir, "out")+": 4 created, 0 updated, 0 unchanged, 0 deleted, 0 released, 1 failed\n") ||
		!strings.Contains(stderr, "failed: default/edge03") || !strings.Contains(stderr, msg) {
		t.Errorf("summary:\n%s\nstderr:\n%s", stdout, stderr)
	}
	status, err := os.ReadFile(filepath.Join(dir, "out", "variants.status.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "reason: RenderFailed\n") || !strings.Contains(string(status), msg) {
		t.Errorf("status:\n%s", status)
	}
}

// TestStackConvertTimeout: an exponential Jsonnet program fails at
// --timeout.
func TestStackConvertTimeout(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "pkg.jsonnet")
	if err := os.WriteFile(src, []byte("local s(n) = if n == 0 then 1 else s(n-1) + s(n-1); s(40)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runStackCmd(t, "convert", "--timeout", "2s", src)
	want := "kptkit stack convert: cannot evaluate " + src + ": timed out after 2s (--timeout)\n"
	if code != 1 || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, stderr, want)
	}
}

// TestLimitFlags: the limits' flags refuse what is not a duration or a size.
func TestLimitFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"render", "--step-timeout", "-1s"}, "kptkit render: --step-timeout is -1s: it takes a positive duration, or 0 for no limit\n"},
		{[]string{"variants", "render", "--variants", "v", "--out", "o", "--step-timeout", "-2m"}, "kptkit variants render: --step-timeout is -2m0s: it takes a positive duration, or 0 for no limit\n"},
		{[]string{"stack", "convert", "--timeout", "-1s", "x.jsonnet"}, "kptkit stack convert: --timeout is -1s: it takes a positive duration, or 0 for no limit\n"},
		{[]string{"render", "--step-memory", "2XB"}, "kptkit render: --step-memory: invalid value \"2XB\": want a whole number of bytes with an optional unit: KiB, MiB, GiB (or Ki, Mi, Gi), KB, MB, GB\n"},
		{[]string{"stack", "convert", "--memory", "-1", "x.jsonnet"}, "kptkit stack convert: --memory: invalid value \"-1\": want a whole number of bytes"},
	} {
		code, _, stderr := kptkitRun(tc.args...)
		if code != 2 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2, %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestStepMemory: a starlark step and a Jsonnet program that keep
// allocating fail at the memory limit; kptkit and its child together never
// hold much more than the limit (the rusage of kptkit's process, which
// counts the child it waited for). It builds kptkit without the race
// detector, whose shadow memory would count against the limit. Linux
// gives a process this test starts the test's own peak as its start
// (Go starts it with vfork, and exec records the shared memory's peak):
// the bound is the limit or that, whichever is more.
func TestStepMemory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds kptkit")
	}
	bin := filepath.Join(t.TempDir(), "kptkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	limit := int64(256 << 20)
	version := exec.Command(bin, "version")
	if err := version.Run(); err != nil {
		t.Fatal(err)
	}
	limit = max(limit, version.ProcessState.SysUsage().(*syscall.Rusage).Maxrss<<10)
	dir := writePkg(t, starlarkPkg(allocate))
	src := filepath.Join(t.TempDir(), "big.jsonnet")
	if err := os.WriteFile(src, []byte("std.join(',', std.makeArray(1000000000, function(i) std.toString(i)))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"render", dir, "--step-memory", "256MiB"}, "failed: exceeded the memory limit of 256MiB (--step-memory)\n"},
		{[]string{"stack", "convert", "--memory", "256MiB", src}, "cannot evaluate " + src + ": exceeded the memory limit of 256MiB (--memory)\n"},
	} {
		cmd := exec.Command(bin, tc.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil || cmd.ProcessState.ExitCode() != 1 || !strings.HasSuffix(stderr.String(), tc.want) {
			t.Errorf("%s: %v, stderr:\n%.3000s\nwant it to end with %q", tc.args[0], err, stderr.String(), tc.want)
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		t.Logf("%s: peak resident memory %d MiB", tc.args[0], peak>>20)
		if peak > limit+64<<20 {
			t.Errorf("%s: peak resident memory %d MiB, want no more than %d MiB and a little", tc.args[0], peak>>20, limit>>20)
		}
	}
}
