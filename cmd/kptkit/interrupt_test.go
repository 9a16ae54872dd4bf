package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
		if strings.Contains(p, ".kptkit-") {
			t.Errorf("left over: %s", p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after interruptions (-clean +got):\n%s", diff)
	}
}
