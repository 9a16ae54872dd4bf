package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// smallDisk mounts a 1 MiB tmpfs for the test (we run as root here) and
// returns it; it skips the test where mounting is not permitted.
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		// A child another parallel test forks holds every descriptor open
		// at the fork until it executes: busy for a moment under load. A
		// descriptor kptkit leaked would keep it busy: an error.
		err := syscall.Unmount(dir, 0)
		for deadline := time.Now().Add(5 * time.Second); err == syscall.EBUSY && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			err = syscall.Unmount(dir, 0)
		}
		if err != nil {
			t.Errorf("umount %s: %v", dir, err)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// bigFleet is a set over n clusters of an upstream of ten 2 KB ConfigMaps.
func bigFleet(n int) map[string]string {
	files := fleetFiles(n, 1)
	for i := range 10 {
		files[fmt.Sprintf("upstream/app/res-%02d.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\ndata:\n  v: %q\n", i, strings.Repeat("x", 2000))
	}
	return files
}

// checkDiskFull checks a run that filled the disk: exit 1; every failed
// variant named with its write error, the summary, and the status's error;
// every package written whole, nothing of a write left.
func checkDiskFull(t *testing.T, out string, code int, stdout, stderr string) {
	t.Helper()
	summary := regexp.MustCompile(`(\d+) variants rendered into .*: (\d+) created, 0 updated, 0 unchanged, 0 deleted, 0 released, (\d+) failed\n`).FindStringSubmatch(stdout)
	if code != 1 || summary == nil || summary[3] == "0" {
		t.Fatalf("exit %d, summary %q\nstdout:\n%s\nstderr:\n%s", code, summary, stdout, stderr)
	}
	failed := regexp.MustCompile(`(?m)^failed: default/apps-(edge\d+)-app \(.*\): cannot write the downstream package edge\d+/app: .*no space left on device$`).FindAllStringSubmatch(stderr, -1)
	if fmt.Sprint(len(failed)) != summary[3] {
		t.Errorf("%d failures named, %s counted:\n%s", len(failed), summary[3], stderr)
	}
	if !strings.HasSuffix(stderr, "kptkit variants render: the status: cannot write variants.status.yaml: no space left on device\n") {
		t.Errorf("the status's error is not last:\n%s", stderr)
	}
	got := snapshot(t, out, "")
	for _, f := range failed {
		if _, ok := got[f[1]+"/"]; ok {
			t.Errorf("%s failed, yet is there", f[1])
		}
	}
	written := 0
	for p := range got {
		if strings.Contains(p, ".kptkit") {
			t.Errorf("left: %s", p)
		}
		if strings.HasSuffix(p, "/app/Kptfile") {
			written++
			for i := range 10 {
				if _, ok := got[filepath.Join(filepath.Dir(p), fmt.Sprintf("res-%02d.yaml", i))]; !ok {
					t.Errorf("%s is not whole", filepath.Dir(p))
				}
			}
		}
	}
	if fmt.Sprint(written) != summary[2] {
		t.Errorf("%d packages, %s created", written, summary[2])
	}
}

// TestVariantsDiskFull (issue 20, case 13): a variants render that fills
// the disk reports each variant it could not write, its summary and the
// status's error, and exits 1; the packages it wrote are whole.
func TestVariantsDiskFull(t *testing.T) {
	t.Parallel()
	dir := workspace(t, bigFleet(100))
	out := smallDisk(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"kptkit", "variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"),
		"--upstream", filepath.Join(dir, "upstream"), "--out", out, "--render=false", "--jobs", "1"}, strings.NewReader(""), &stdout, &stderr)
	checkDiskFull(t, out, code, stdout.String(), stderr.String())
}

// TestVariantsWriteErrorsReported: the same with the full disk stood in
// for (every write of three packages and of the status fails so), where
// no small disk can be mounted.
func TestVariantsWriteErrorsReported(t *testing.T) {
	t.Parallel()
	dir := workspace(t, bigFleet(8))
	out := filepath.Join(dir, "out")
	cmd := helper([]string{"KPTKIT_HELPER_FAIL=^edge000[136]/|^variants.status.yaml$"}, "variants", "render", "--variants", filepath.Join(dir, "variants"),
		"--cluster", filepath.Join(dir, "cluster"), "--upstream", filepath.Join(dir, "upstream"), "--out", out, "--render=false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code != 1 {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(out, "README.md"))
	checkDiskFull(t, out, code, stdout.String(), stderr.String())
	if !strings.Contains(stdout.String(), "8 variants rendered into "+out+": 5 created, 0 updated, 0 unchanged, 0 deleted, 0 released, 3 failed\n") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

// TestRenderAllOrNothing (issue 20, case 5): kptkit render in place writes
// the whole package or none of it: a step output whose paths clash
// (b.yaml/x.yaml while b.yaml stays a file), and a disk too small for the
// rendered files, leave every file as it was and nothing behind.
func TestRenderAllOrNothing(t *testing.T) {
	t.Parallel()
	star := kptpkg.Files{
		"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n" +
			"  - image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.4.3\n    configPath: star.yaml\n"),
		"star.yaml": []byte("apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: s\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" +
			"source: |\n  for r in ctx.resource_list['items']:\n    if r['kind'] == 'ConfigMap':\n      r['metadata']['namespace'] = 'prod'\n" +
			"      if r['metadata']['name'] == 'moved':\n        r['metadata']['annotations']['config.kubernetes.io/path'] = 'b.yaml/x.yaml'\n" +
			"        r['metadata']['annotations']['internal.config.kubernetes.io/path'] = 'b.yaml/x.yaml'\n"),
		"a.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
		"b.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: moved\n"),
	}
	big := renderPkg.Clone()
	for i := range 5 {
		big[fmt.Sprintf("c%d.yaml", i)] = []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n  v: %q\n", i, strings.Repeat("x", 100<<10)))
	}
	// fill leaves 40 KiB of the (small) disk at dir free.
	fill := func(dir string) {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		if free := int64(st.Bavail) * st.Bsize; free > 40<<10 && free < 2<<20 {
			writeFile(t, dir, "filler", strings.Repeat("f", int(free-40<<10)))
		}
	}
	for _, c := range []struct {
		name  string
		files kptpkg.Files
		disk  string // a small disk to fill; "": a folder
		want  string
	}{
		{"paths clash", star, "", "failed to save resources: cannot write b.yaml/x.yaml: b.yaml is a file of the package too"},
		{"disk full", big, smallDisk(t), "failed to save resources: cannot write c0.yaml: no space left on device"},
	} {
		dir := filepath.Join(t.TempDir(), "app")
		if c.disk != "" {
			dir = filepath.Join(c.disk, "app")
		}
		for p, b := range c.files {
			writeFile(t, dir, p, string(b))
		}
		if c.disk != "" {
			fill(c.disk)
		}
		before := snapshot(t, dir, "")
		code, _, stderr := kptkitRun("render", dir, "--builtin-prefix", "ghcr.io/me/kptkit")
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %q", c.name, code, stderr, c.want)
		}
		if diff := cmp.Diff(before, snapshot(t, dir, "")); diff != "" {
			t.Errorf("%s: the package changed (-before +after):\n%s", c.name, diff)
		}
	}
}

// TestRenderLeavesLookalikesBe (issue 20, case 6): files and folders named
// like an earlier kptkit's scratch, anywhere in the package (.git
// included), are the user's: a render that changes nothing and one that
// changes files leave them as they are.
func TestRenderLeavesLookalikesBe(t *testing.T) {
	t.Parallel()
	dir := writePkg(t, renderPkg)
	for p, c := range map[string]string{".backup.yaml.kptkit-new": "backup\n", ".git/refs/.stash.kptkit-new/x": "stash\n",
		"docs/.drafts.kptkit-new/d.md": "draft\n", "docs/.notes.kptkit-old": "notes\n"} {
		writeFile(t, dir, p, c)
	}
	lookalikes := func() map[string]string {
		out := map[string]string{}
		for p, c := range snapshot(t, dir, "") {
			if strings.Contains(p, "kptkit") {
				out[p] = c
			}
		}
		return out
	}
	before := lookalikes()
	if len(before) != 6 {
		t.Fatalf("lookalikes: %v", before)
	}
	for i := range 2 {
		if code, _, stderr := kptkitRun("render", dir, "--builtin-prefix", "ghcr.io/me/kptkit"); code != 0 {
			t.Fatalf("render %d: %s", i, stderr)
		}
		if diff := cmp.Diff(before, lookalikes()); diff != "" {
			t.Errorf("render %d (-before +after):\n%s", i, diff)
		}
	}
}

// TestRenderOneWriterAtATime (issue 20): kptkit render in place holds the
// package's lock: a second render fails at once naming the first, or
// waits with --wait.
func TestRenderOneWriterAtATime(t *testing.T) {
	t.Parallel()
	dir := writePkg(t, renderPkg)
	paused := filepath.Join(t.TempDir(), "paused")
	first := helper([]string{"KPTKIT_HELPER_PAUSE=1:" + paused}, "render", dir, "--builtin-prefix", "ghcr.io/me/kptkit")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
	for _, err := os.Stat(paused); err != nil; _, err = os.Stat(paused) {
		time.Sleep(5 * time.Millisecond)
	}
	host, _ := os.Hostname()
	want := fmt.Sprintf("kptkit render: %s is in use: kptkit pid %d on %s since ", dir, first.Process.Pid, host)
	code, _, stderr := kptkitRun("render", dir, "--builtin-prefix", "ghcr.io/me/kptkit")
	if code != 1 || !strings.HasPrefix(stderr, want) || !strings.HasSuffix(stderr, " holds its lock; wait for it to end, or give --wait DURATION\n") {
		t.Errorf("exit %d, stderr %q, want %q…", code, stderr, want)
	}
	done := make(chan int)
	go func() {
		code, _, _ := kptkitRun("render", dir, "--builtin-prefix", "ghcr.io/me/kptkit", "--wait", "2m")
		done <- code
	}()
	time.Sleep(50 * time.Millisecond)
	_ = first.Process.Kill()
	if code := <-done; code != 0 {
		t.Errorf("waiting: exit %d", code)
	}
}
