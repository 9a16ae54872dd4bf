package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/pkgfs"
)

// TestKptkitHelper is not a test: it is kptkit in a process of its own,
// for the tests that kill a run or run two at once. With
// KPTKIT_HELPER_ARGS (kptkit's arguments, one a line) it runs them and
// exits with kptkit's code. KPTKIT_HELPER_PAUSE=N:FILE makes it, before the
// Nth step of its writes (pkgfs's apply hook, counted from 1 over the whole
// run), create FILE and wait there to be killed; KPTKIT_HELPER_SYNC_PAUSE=N:FILE
// does the same before the Nth change in git syncs its pack (gitrepo's
// sync hook), every change from it on waiting there; KPTKIT_HELPER_TX_PAUSE=FILE
// makes every ref transaction, its locks held, create FILE and wait there; KPTKIT_HELPER_FAIL=RE
// fails every write step whose path RE matches with "no space left on
// device", as a full disk would.
func TestKptkitHelper(t *testing.T) {
	args := os.Getenv("KPTKIT_HELPER_ARGS")
	if args == "" {
		t.Skip("run by other tests as a process of its own")
	}
	var pauseAt int
	var pauseFile string
	if n, f, ok := strings.Cut(os.Getenv("KPTKIT_HELPER_PAUSE"), ":"); ok {
		pauseAt, _ = strconv.Atoi(n)
		pauseFile = f
	}
	var fail *regexp.Regexp
	if re := os.Getenv("KPTKIT_HELPER_FAIL"); re != "" {
		fail = regexp.MustCompile(re)
	}
	var steps atomic.Int64 // the fleet writes from several goroutines
	pkgfs.SetApplyHook(func(_ int, p string) error {
		if n := steps.Add(1); pauseAt > 0 && n >= int64(pauseAt) {
			if n == int64(pauseAt) {
				_ = os.WriteFile(pauseFile, nil, 0o644)
			}
			select {} // every write stops here until the process is killed
		}
		if fail != nil && p != "" && fail.MatchString(p) {
			return syscall.ENOSPC
		}
		return nil
	})
	if n, f, ok := strings.Cut(os.Getenv("KPTKIT_HELPER_SYNC_PAUSE"), ":"); ok {
		at, _ := strconv.Atoi(n)
		var batches atomic.Int64
		gitrepo.SetSyncHook(func([]string) {
			if k := batches.Add(1); k >= int64(at) {
				if k == int64(at) {
					_ = os.WriteFile(f, nil, 0o644)
				}
				time.Sleep(time.Hour) // until the process is killed
			}
		})
	}
	if f := os.Getenv("KPTKIT_HELPER_TX_PAUSE"); f != "" {
		gitrepo.SetTransactionHook(func() {
			_ = os.WriteFile(f, nil, 0o644)
			time.Sleep(time.Hour) // until the process is interrupted twice
		})
	}
	os.Exit(run(append([]string{"kptkit"}, strings.Split(args, "\n")...), os.Stdin, os.Stdout, os.Stderr))
}

// helper returns kptkit as a process of its own (TestKptkitHelper), with
// env (KEY=VALUE) added.
func helper(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKptkitHelper$")
	cmd.Env = append(os.Environ(), "KPTKIT_HELPER_ARGS="+strings.Join(args, "\n"))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// killAtStep runs kptkit paused before the step-th step of its writes and
// kills it there; it reports whether the run got that far.
func killAtStep(t *testing.T, step int, args ...string) bool {
	t.Helper()
	paused := filepath.Join(t.TempDir(), "paused")
	cmd := helper([]string{fmt.Sprintf("KPTKIT_HELPER_PAUSE=%d:%s", step, paused)}, args...)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the run ended (%v) before step %d:\n%s", err, step, out)
			}
			return false // fewer steps than that
		case <-time.After(5 * time.Millisecond):
		}
		if _, err := os.Stat(paused); err == nil {
			_ = cmd.Process.Kill()
			<-done
			return true
		}
	}
}

// recoverOnly opens the folder to write and closes it, as the next run
// does first: the writes a killed run left are undone.
func recoverOnly(t *testing.T, dir string) {
	t.Helper()
	out, err := pkgfs.OpenOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestVariantsInterrupted kills a render part-way, then runs it again: every
// package comes out whole and the output is what one clean run gives.
func TestVariantsInterrupted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds kptkit and renders a fleet twice")
	}
	bin := filepath.Join(t.TempDir(), "kptkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files := map[string]string{"variants/set.yaml": pvs("apps", "")}
	var names []string
	for i := range 600 {
		names = append(names, fmt.Sprintf("edge%04d", i))
	}
	files["cluster/repos.yaml"] = repos(names...)
	for i := range 20 {
		files[fmt.Sprintf("upstream/app/res-%02d.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\ndata:\n  k: v\n", i)
	}
	dir := workspace(t, files)
	args := func(out string) []string {
		return []string{"variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"),
			"--upstream", filepath.Join(dir, "upstream"), "--out", out, "--render=false", "--jobs", "2"}
	}
	// The clean run.
	if out, err := exec.Command(bin, args(filepath.Join(dir, "clean"))...).CombinedOutput(); err != nil {
		t.Fatalf("clean run: %v\n%s", err, out)
	}
	want := snapshot(t, filepath.Join(dir, "clean"), "")
	// Kill runs at several points.
	out := filepath.Join(dir, "out")
	for _, after := range []int{5, 150, 400} {
		cmd := exec.Command(bin, args(out)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if entries, _ := os.ReadDir(out); len(entries) >= after {
				break
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	if out, err := exec.Command(bin, args(out)...).CombinedOutput(); err != nil {
		t.Fatalf("the run after: %v\n%s", err, out)
	}
	got := snapshot(t, out, "")
	delete(got, "README.md") // the workspace's own file in out/
	for p := range got {
		if strings.Contains(p, ".kptkit") {
			t.Errorf("left over: %s", p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after interruptions (-clean +got):\n%s", diff)
	}
}

// fleetFiles is a set over n clusters of an upstream of 20 ConfigMaps,
// at version v.
func fleetFiles(n, v int) map[string]string {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("edge%04d", i))
	}
	files := map[string]string{"variants/set.yaml": pvs("apps", ""), "cluster/repos.yaml": repos(names...)}
	for i := range 20 {
		files[fmt.Sprintf("upstream/app/res-%02d.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\ndata:\n  v: \"%d\"\n", i, v)
	}
	return files
}

// packageStates splits a snapshot of an output by package (<repo>/app).
func packageStates(all map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for p, c := range all {
		repo, rest, ok := strings.Cut(p, string(filepath.Separator))
		if !ok || !strings.HasPrefix(repo, "edge") {
			continue
		}
		if out[repo] == nil {
			out[repo] = map[string]string{}
		}
		out[repo][rest] = c
	}
	return out
}

// TestVariantsKilledMidWrite (issue 20, case 7): an update killed at any
// point of its writes leaves, once the next run has recovered the output,
// every package as it was or as the update makes it — never a mix — and
// no journal; the run after gives what a clean run gives.
func TestVariantsKilledMidWrite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("renders a fleet again and again")
	}
	const n = 40
	v2 := workspace(t, fleetFiles(n, 2))
	if code, _, stderr := kptkit(t, v2, "--cluster", filepath.Join(v2, "cluster")); code != 0 {
		t.Fatalf("v2: %s", stderr)
	}
	newStates := packageStates(snapshot(t, filepath.Join(v2, "out"), ""))
	for _, step := range []int{1, 2, 7, 20, 90, 200} {
		dir := workspace(t, fleetFiles(n, 1))
		if code, _, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster")); code != 0 {
			t.Fatalf("v1: %s", stderr)
		}
		out := filepath.Join(dir, "out")
		oldStates := packageStates(snapshot(t, out, ""))
		for p, c := range fleetFiles(n, 2) {
			writeFile(t, dir, p, c)
		}
		if !killAtStep(t, step, "variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"),
			"--upstream", filepath.Join(dir, "upstream"), "--out", out, "--render=false", "--jobs", "2") {
			t.Fatalf("the update has fewer than %d steps", step)
		}
		recoverOnly(t, out)
		mixed := 0
		for repo, got := range packageStates(snapshot(t, out, "")) {
			if !cmp.Equal(got, oldStates[repo]) && !cmp.Equal(got, newStates[repo]) {
				mixed++
				t.Errorf("killed at step %d: %s is neither old nor new:\n%s", step, repo, cmp.Diff(oldStates[repo], got))
			}
		}
		if _, err := os.Stat(filepath.Join(out, ".kptkit")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("killed at step %d: .kptkit left after recovery: %v", step, err)
		}
		if code, _, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster")); code != 0 {
			t.Fatalf("the run after: %s", stderr)
		}
		if diff := cmp.Diff(newStates, packageStates(snapshot(t, out, ""))); diff != "" {
			t.Errorf("killed at step %d, run again (-clean +got):\n%s", step, diff)
		}
	}
}

// TestRenderKilledMidWrite (issue 20, case 7): kptkit render in place,
// killed before any step of its write or before its commit, leaves the
// package as it was once the next run recovers it, no journal left; run
// again, it writes the rendered package.
func TestRenderKilledMidWrite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs kptkit render again and again")
	}
	src := renderPkg.Clone()
	src["docs/run.sh"] = []byte("echo\n")
	for step := 1; ; step++ {
		dir := writePkg(t, src)
		if err := os.Chmod(filepath.Join(dir, "docs/run.sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir, "")
		args := []string{"render", dir, "--builtin-prefix", "ghcr.io/me/kptkit"}
		if !killAtStep(t, step, args...) {
			if step < 5 {
				t.Errorf("only %d steps", step-1)
			}
			return
		}
		recoverOnly(t, dir)
		if diff := cmp.Diff(before, snapshot(t, dir, "")); diff != "" {
			t.Errorf("killed before step %d, recovered (-before +after):\n%s", step, diff)
		}
		if code, _, stderr := kptkitRun(args...); code != 0 {
			t.Fatalf("run again: %s", stderr)
		}
		got, err := pkgfs.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := renderedPkg()
		want["docs/run.sh"] = []byte("echo\n")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("killed before step %d, run again (-want +got):\n%s", step, diff)
		}
	}
}

// TestVariantsOneWriterAtATime (issue 20, case 1): while one run writes
// an output, a second fails at once, naming the first (pid, host, start);
// a --check too; with --wait the second runs once the first has ended.
func TestVariantsOneWriterAtATime(t *testing.T) {
	t.Parallel()
	dir := workspace(t, fleetFiles(3, 1))
	out := filepath.Join(dir, "out")
	paused := filepath.Join(t.TempDir(), "paused")
	first := helper([]string{"KPTKIT_HELPER_PAUSE=1:" + paused}, "variants", "render", "--variants", filepath.Join(dir, "variants"),
		"--cluster", filepath.Join(dir, "cluster"), "--upstream", filepath.Join(dir, "upstream"), "--out", out, "--render=false")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
	for _, err := os.Stat(paused); err != nil; _, err = os.Stat(paused) {
		time.Sleep(5 * time.Millisecond)
	}
	host, _ := os.Hostname()
	holder := regexp.QuoteMeta(fmt.Sprintf("kptkit variants render: %s is in use: kptkit pid %d on %s since ", out, first.Process.Pid, host)) +
		`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(kptkit\.test\) holds its lock; wait for it to end, or give --wait DURATION\n$`
	for _, extra := range [][]string{nil, {"--check"}, {"--dry-run"}} {
		code, stdout, stderr := kptkit(t, dir, append([]string{"--cluster", filepath.Join(dir, "cluster")}, extra...)...)
		if code != 1 || stdout != "" || !regexp.MustCompile(holder).MatchString(stderr) {
			t.Errorf("%v while another run writes: exit %d\nstdout: %s\nstderr: %s\nwant %s", extra, code, stdout, stderr, holder)
		}
	}
	// Waiting: the second run ends after the first (killed here, which
	// releases its lock as its end would).
	done := make(chan string)
	go func() {
		code, _, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster"), "--wait", "2m")
		done <- fmt.Sprintf("exit %d %s", code, stderr)
	}()
	time.Sleep(100 * time.Millisecond)
	_ = first.Process.Kill()
	if got := <-done; got != "exit 0 " {
		t.Errorf("waiting: %s", got)
	}
	if diff := cmp.Diff([]string{"edge0000/app", "edge0001/app", "edge0002/app"}, packages(t, dir)); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
}

// TestVariantsConcurrent (issue 20, case 1): two runs at once on one
// output, 200 variants, four rounds with the upstream moved between
// rounds, both waiting for the other: every run succeeds, every package
// is whole at the end and what one clean run gives, no scratch left.
func TestVariantsConcurrent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("renders 200 variants eight times")
	}
	const n = 200
	clean := workspace(t, fleetFiles(n, 4))
	if code, _, stderr := kptkit(t, clean, "--cluster", filepath.Join(clean, "cluster")); code != 0 {
		t.Fatalf("clean: %s", stderr)
	}
	want := snapshot(t, filepath.Join(clean, "out"), "")
	dir := workspace(t, fleetFiles(n, 1))
	out := filepath.Join(dir, "out")
	for round := 1; round <= 4; round++ {
		for p, c := range fleetFiles(n, round) {
			writeFile(t, dir, p, c)
		}
		var runs []*exec.Cmd
		var outputs []*strings.Builder
		for range 2 {
			cmd := helper(nil, "variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"),
				"--upstream", filepath.Join(dir, "upstream"), "--out", out, "--render=false", "--jobs", "2", "--wait", "5m")
			b := &strings.Builder{}
			cmd.Stdout, cmd.Stderr = b, b
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			runs, outputs = append(runs, cmd), append(outputs, b)
		}
		for i, cmd := range runs {
			if err := cmd.Wait(); err != nil {
				t.Errorf("round %d, run %d: %v\n%s", round, i, err, outputs[i])
			}
		}
	}
	if diff := cmp.Diff(want, snapshot(t, out, "")); diff != "" {
		t.Errorf("after four rounds of two runs (-clean +got):\n%s", diff)
	}
}

// TestVariantsGitInterrupted: a render in git interrupted (SIGINT) while
// changes wait to sync their packs (from the second on) leaves each of
// them not made at all — no ref moved, no lock left — and the change
// synced before made whole or not at all (an interrupt lets a ref
// transaction under way end); git reads every repository whole; the run
// after gives what a clean run gives.
func TestVariantsGitInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a fleet in git in a process of its own")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	clusters := []string{"edge01", "edge02", "edge03", "edge04", "edge05", "edge06"}
	clean := newGitFleet(t, clusters...)
	clean.variants("v1", "", clusters...)
	clean.mustRender()
	f := newGitFleet(t, clusters...)
	f.variants("v1", "", clusters...)
	before := map[string]string{}
	for c, d := range f.deploy {
		before[c] = dump(d)
	}
	paused := filepath.Join(t.TempDir(), "paused")
	cmd, out, done := startPaused(t, []string{"KPTKIT_HELPER_SYNC_PAUSE=2:" + paused}, paused, "its second pack", f.args("--jobs", "3")...)
	_ = cmd.Process.Signal(os.Interrupt)
	if err := <-done; err == nil {
		t.Fatalf("the run was not interrupted:\n%s", out)
	}
	made, notMade := 0, 0
	for _, c := range clusters {
		d := f.deploy[c]
		d.Git("fsck", "--strict", "--no-dangling")
		switch got := dump(d); got {
		case dump(clean.deploy[c]):
			made++
		case before[c]:
			notMade++
		default:
			t.Errorf("%s is neither as it was nor as a clean run leaves it:\n%s", c, got)
		}
		noLocks(t, d.Dir)
	}
	if notMade == 0 {
		t.Errorf("%d repositories changed, none not: the interrupt did not fall while changes waited", made)
	}
	f.mustRender()
	for _, c := range clusters {
		if diff := cmp.Diff(dump(clean.deploy[c]), dump(f.deploy[c])); diff != "" {
			t.Errorf("%s after the run after (-clean +got):\n%s", c, diff)
		}
	}
}

// TestVariantsGitInterruptedTwice: a render in git whose ref transaction
// does not end (paused, its locks held) waits on the first interrupt — the
// transaction is let end — and ends on the second, by that signal, its
// locks removed: no ref moved, nothing locked; the run after gives what a
// clean run gives.
func TestVariantsGitInterruptedTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a fleet in git in a process of its own")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	clean := newGitFleet(t, "edge01")
	clean.variants("v1", "", "edge01")
	clean.mustRender()
	f := newGitFleet(t, "edge01")
	f.variants("v1", "", "edge01")
	before := dump(f.deploy["edge01"])
	paused := filepath.Join(t.TempDir(), "paused")
	cmd, out, done := startPaused(t, []string{"KPTKIT_HELPER_TX_PAUSE=" + paused}, paused, "a ref transaction", f.args()...)
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-done:
		t.Fatalf("the run ended on the first interrupt, its transaction under way: %v\n%s", err, out)
	case <-time.After(300 * time.Millisecond):
	}
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the run did not end on the second interrupt:\n%s", out)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("the run ended with %v, not by SIGINT", cmd.ProcessState)
	}
	d := f.deploy["edge01"]
	noLocks(t, d.Dir)
	d.Git("fsck", "--strict", "--no-dangling")
	if got := dump(d); got != before {
		t.Errorf("a ref moved:\n%s", got)
	}
	f.mustRender()
	if diff := cmp.Diff(dump(clean.deploy["edge01"]), dump(d)); diff != "" {
		t.Errorf("after the run after (-clean +got):\n%s", diff)
	}
}

// startPaused starts kptkit in a process of its own (helper) and waits
// until it has created paused, where it waits to be interrupted; the run's
// end comes on done (its output whole by then). A run that never comes
// there (to what) is killed and fails the test.
func startPaused(t *testing.T, env []string, paused, what string, args ...string) (cmd *exec.Cmd, out *strings.Builder, done <-chan error) {
	t.Helper()
	cmd = helper(env, args...)
	out = &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(paused); err == nil {
			return cmd, out, ended
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-ended
			t.Fatalf("the run never came to %s:\n%s", what, out)
		}
	}
}

// noLocks fails the test for every lock file (*.lock) in a repository.
func noLocks(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			t.Errorf("lock left: %s", p)
		}
		return err
	})
}
