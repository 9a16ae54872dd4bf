package bounded

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// works are the children this test binary runs (Child re-executes it).
var works = map[string]Work{
	"echo": func(args []string, stdin io.Reader, stdout, _ io.Writer) int {
		_, _ = io.Copy(stdout, stdin)
		fmt.Fprint(stdout, strings.Join(args, ","), len(os.Environ()))
		return 0
	},
	"fail": func(_ []string, _ io.Reader, _, stderr io.Writer) int {
		fmt.Fprint(stderr, "no luck")
		return 3
	},
	"spin": func([]string, io.Reader, io.Writer, io.Writer) int {
		for {
		}
	},
	"bigalloc": func([]string, io.Reader, io.Writer, io.Writer) int {
		return len(strings.Repeat("x", 1e9))
	},
	"alloc": func([]string, io.Reader, io.Writer, io.Writer) int {
		var keep [][]byte
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
		}
	},
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, works))
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

func TestSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Size{
		"2GiB": 2 << 30, "256MiB": 256 << 20, "256mib": 256 << 20, "512Mi": 512 << 20, "1Ki": 1 << 10,
		"1G": 1e9, "1 GB": 1e9, "500M": 500e6, "1048576": 1 << 20, "0": 0, "1000B": 1000, "3k": 3000, "1TiB": 1 << 40,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1MiB", "1.5GiB", "2 XB", "9999999999TiB", "0x10"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
	for s, want := range map[Size]string{2 << 30: "2GiB", 256 << 20: "256MiB", 1536 << 20: "1536MiB", 1e9: "1000000000B", 3 << 10: "3KiB", 0: "0", 1 << 40: "1TiB"} {
		if got := s.String(); got != want {
			t.Errorf("Size(%d) = %q, want %q", int64(s), got, want)
		}
	}
}

var limits = Limits{Time: time.Minute, Memory: 256 << 20, TimeFlag: "--step-timeout", MemoryFlag: "--step-memory"}

// childLimits are limits for a child of this test binary: under the race
// detector, whose shadow memory counts against a memory limit, none.
func childLimits() Limits {
	l := limits
	if raceEnabled {
		l.Memory = 0
	}
	return l
}

func TestExceededMessages(t *testing.T) {
	t.Parallel()
	got := []string{(&Exceeded{Limits: limits}).Error(), (&Exceeded{Memory: true, Limits: limits}).Error(), (&Exceeded{Limits: Limits{Time: 2 * time.Minute}}).Error()}
	want := []string{"timed out after 1m0s (--step-timeout)", "exceeded the memory limit of 256MiB (--step-memory)", "timed out after 2m0s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestWait(t *testing.T) {
	t.Parallel()
	ran := false
	if err := Wait(limits, func() { ran = true }); err != nil || !ran {
		t.Errorf("work that ends: %v (ran %v)", err, ran)
	}
	if err := Wait(Limits{}, func() { ran = false }); err != nil || ran {
		t.Errorf("no limit: %v (ran %v)", err, !ran)
	}
	block := make(chan struct{})
	defer close(block)
	err := Wait(Limits{Time: 50 * time.Millisecond}, func() { <-block })
	var ex *Exceeded
	if !errors.As(err, &ex) || err.Error() != "timed out after 50ms" {
		t.Errorf("work that does not end: %v", err)
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("panic: got %v, want boom", p)
		}
	}()
	_ = Wait(limits, func() { panic("boom") })
}

func TestChild(t *testing.T) {
	t.Parallel()
	res, err := Child(self(t), "echo", []string{"a", "b"}, childLimits()).Run([]byte("in:"))
	if err != nil || string(res.Stdout) != "in:a,b0" || res.Code != 0 {
		t.Errorf("echo: %q, code %d, %v (want in:a,b0: its arguments, an empty environment)", res.Stdout, res.Code, err)
	}
	res, err = Child(self(t), "fail", nil, childLimits()).Run(nil)
	if err != nil || res.Code != 3 || string(res.Stderr) != "no luck" {
		t.Errorf("fail: code %d, stderr %q, %v", res.Code, res.Stderr, err)
	}
	res, err = Child(self(t), "nothing", nil, childLimits()).Run(nil)
	if err != nil || res.Code != 2 || !strings.Contains(string(res.Stderr), `no work "nothing"`) {
		t.Errorf("an unknown work: code %d, stderr %q, %v", res.Code, res.Stderr, err)
	}
}

// TestChildTimeout: a child that never ends is killed at its time limit.
func TestChildTimeout(t *testing.T) {
	t.Parallel()
	l := childLimits()
	l.Time = time.Second
	_, err := Child(self(t), "spin", nil, l).Run(nil)
	if err == nil || err.Error() != "timed out after 1s (--step-timeout)" {
		t.Errorf("got %v", err)
	}
}

// TestChildMemory: a child that keeps allocating fails at its memory limit,
// its peak resident memory below the limit.
func TestChildMemory(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit (cmd/kptkit's TestStepMemory runs a built kptkit)")
	}
	l := limits
	// Step by step, and in one go (Go's heap maps past the rlimit then).
	for _, work := range []string{"alloc", "bigalloc"} {
		res, err := Child(self(t), work, nil, l).Run(nil)
		if err == nil || err.Error() != "exceeded the memory limit of 256MiB (--step-memory)" {
			t.Fatalf("%s: got %v\n%.500s", work, err, res.Stderr)
		}
		t.Logf("%s: peak resident memory %s", work, res.Peak)
		if res.Peak > l.Memory+32<<20 {
			t.Errorf("%s: peak resident memory %s: want no more than the limit, %s (its text aside)", work, res.Peak, l.Memory)
		}
	}
}

// TestCommandTimeout: a command that never ends is killed at its time
// limit with every process it started (its process group).
func TestCommandTimeout(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	script := "sleep 1000 & echo $$ $! > " + pids + "; wait"
	short := limits
	short.Time = 2 * time.Second
	for _, l := range []Limits{short, {Time: 2 * time.Second}} { // through the trampoline, and not
		res, err := Cmd{Path: "/bin/sh", Args: []string{"-c", script}, Limits: l, Self: self(t)}.Run(nil)
		if err == nil || err.Error() != (&Exceeded{Limits: l}).Error() {
			t.Errorf("got %v, stderr %q", err, res.Stderr)
		}
		b, err := os.ReadFile(pids)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			if alive(pid) {
				t.Errorf("process %d of the command outlived it", pid)
			}
		}
	}
}

// TestCommandLeftovers: a process a command leaves behind is killed when
// the command ends.
func TestCommandLeftovers(t *testing.T) {
	t.Parallel()
	res, err := Cmd{Path: "/bin/sh", Args: []string{"-c", "sleep 1000 >/dev/null 2>&1 & echo $!"}, Limits: limits, Self: self(t)}.Run(nil)
	if err != nil || res.Code != 0 {
		t.Fatalf("code %d, %v", res.Code, err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if pid == 0 || alive(pid) {
		t.Errorf("the command's child %d outlived it", pid)
	}
}

// alive: the process exists and is not a zombie, within a second (a killed
// process takes a moment to go).
func alive(pid int) bool {
	for range 100 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || syscall.Kill(pid, 0) != nil {
			return false
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// TestCommandMemory: a command that keeps allocating fails at the memory
// limit kptkit's trampoline set; one that does not passes.
func TestCommandMemory(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	l := limits
	res, err := Cmd{Path: python, Args: []string{"-c", "a = []\nwhile True: a.append(bytearray(1 << 20))"}, Limits: l, Self: self(t)}.Run(nil)
	if err == nil || err.Error() != "exceeded the memory limit of 256MiB (--step-memory)" {
		t.Errorf("got %v, stderr %q", err, res.Stderr)
	}
	t.Logf("peak resident memory %s", res.Peak)
	if res.Peak > l.Memory+32<<20 || res.Peak < l.Memory/2 {
		t.Errorf("peak resident memory %s: want about the limit, %s", res.Peak, l.Memory)
	}
	res, err = Cmd{Path: python, Args: []string{"-c", "print(len(bytearray(100 << 20)))"}, Limits: l, Self: self(t)}.Run(nil)
	if err != nil || string(res.Stdout) != "104857600\n" {
		t.Errorf("within the limit: %q, %v, stderr %q", res.Stdout, err, res.Stderr)
	}
}

// TestCommandSmallMemory: the limit is the command's, not the trampoline's
// (kptkit's runtime maps more than a small command needs).
func TestCommandSmallMemory(t *testing.T) {
	t.Parallel()
	l := limits
	l.Memory = 16 << 20
	res, err := Cmd{Path: "/bin/sh", Args: []string{"-c", "echo ok"}, Limits: l, Self: self(t)}.Run(nil)
	if err != nil || string(res.Stdout) != "ok\n" {
		t.Errorf("got %q, %v, stderr %q", res.Stdout, err, res.Stderr)
	}
}

func TestCommandErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []Cmd{{Path: missing}, {Path: missing, Limits: limits, Self: self(t)}} {
		if _, err := c.Run(nil); err == nil || err.Error() != "fork/exec "+missing+": no such file or directory" {
			t.Errorf("a missing binary (memory %s): %v", c.Limits.Memory, err)
		}
	}
	if _, err := (Cmd{Path: "/bin/sh", Limits: limits}).Run(nil); err == nil || !strings.Contains(err.Error(), "needs kptkit's own binary") {
		t.Errorf("a memory limit without Self: %v", err)
	}
	res, err := Cmd{Path: "/bin/sh", Args: []string{"-c", "cat; echo oops >&2; exit 3"}, Limits: limits, Self: self(t)}.Run([]byte("in\n"))
	if err != nil || string(res.Stdout) != "in\n" || string(res.Stderr) != "oops\n" || res.Code != 3 {
		t.Errorf("a failing command: %+v, %v", res, err)
	}
}

// TestStderrCapped: of a command's stderr, the first MaxStderr bytes are
// kept, and the command is not held up by the rest.
func TestStderrCapped(t *testing.T) {
	t.Parallel()
	res, err := Cmd{Path: "/bin/sh", Args: []string{"-c", "head -c 3000000 /dev/zero >&2; echo done"}, Limits: Limits{Time: time.Minute}}.Run(nil)
	if err != nil || len(res.Stderr) != MaxStderr || string(res.Stdout) != "done\n" {
		t.Errorf("stderr %d bytes, stdout %q, %v; want %d bytes and done", len(res.Stderr), res.Stdout, err, MaxStderr)
	}
}

// TestStdoutBounded: a command that writes more than MaxStdout on stdout
// is stopped and refused, whatever it writes after; within the bound its
// output is whole.
func TestStdoutBounded(t *testing.T) {
	t.Parallel()
	res, err := Cmd{Path: "/bin/sh", Args: []string{"-c", "head -c 3000000 /dev/zero; sleep 100"}, MaxStdout: 1 << 20, Limits: Limits{Time: time.Minute}}.Run(nil)
	if want := "its output is larger than 1MiB, the most kptkit reads from a function: refused"; err == nil || err.Error() != want || len(res.Stdout) > 1<<20 {
		t.Errorf("got %d bytes, %v; want at most 1MiB and %q", len(res.Stdout), err, want)
	}
	res, err = Cmd{Path: "/bin/sh", Args: []string{"-c", "head -c 1048576 /dev/zero"}, MaxStdout: 1 << 20, Limits: Limits{Time: time.Minute}}.Run(nil)
	if err != nil || len(res.Stdout) != 1<<20 {
		t.Errorf("got %d bytes, %v; want 1MiB", len(res.Stdout), err)
	}
}
