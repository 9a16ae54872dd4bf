package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

// TestVariantsShardRefused: every bad --shard exits 2 saying what is
// wrong and what is expected, and writes nothing.
func TestVariantsShardRefused(t *testing.T) { // not parallel: sets JOB_COMPLETION_INDEX
	for _, c := range []struct {
		shard, index, want string
	}{
		{"3/3", "", `--shard is "3/3": K is 3: it takes 0 to 2 (0 ≤ K < N)`},
		{"-1/2", "", `--shard is "-1/2": K is -1: it takes 0 to 1 (0 ≤ K < N)`},
		{"0/0", "", `--shard is "0/0": N is 0: it takes 1 or more shards`},
		{"a/b", "", `--shard is "a/b": "a/b" is not K/N (shard K of N, 0 ≤ K < N) nor N (K from JOB_COMPLETION_INDEX)`},
		{"2", "", `--shard is "2": 2 alone takes K from JOB_COMPLETION_INDEX, which is not set: give K/2`},
		{"2", "2", `--shard is "2": K is 2: it takes 0 to 1 (0 ≤ K < N)`},
		{"2", "-1", `--shard is "2": K is -1: it takes 0 to 1 (0 ≤ K < N)`},
	} {
		t.Run(c.shard+"_"+c.index, func(t *testing.T) {
			t.Setenv(jobIndexEnv, c.index)
			if c.index == "" {
				os.Unsetenv(jobIndexEnv)
			}
			dir := workspace(t, map[string]string{"variants/pv.yaml": pv("web", "  downstream: {repo: edge01, package: web}\n")})
			before := snapshot(t, dir, "")
			code, stdout, stderr := kptkit(t, dir, "--shard", c.shard)
			want := "kptkit variants render: " + c.want + "\nRun 'kptkit variants render --help' for usage.\n"
			if d := cmp.Diff(want, stderr); d != "" || code != 2 || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr (-want +got):\n%s", code, stdout, d)
			}
			if d := cmp.Diff(before, snapshot(t, dir, "")); d != "" {
				t.Errorf("a refused run wrote (-before +after):\n%s", d)
			}
		})
	}
}

// TestVariantsShardFromJobIndex: --shard N takes K from
// JOB_COMPLETION_INDEX; the status goes to OUT/variants.status.K-of-N.yaml.
func TestVariantsShardFromJobIndex(t *testing.T) { // not parallel: sets JOB_COMPLETION_INDEX
	t.Setenv(jobIndexEnv, "1")
	dir := workspace(t, map[string]string{"variants/pv.yaml": pv("web", "  downstream: {repo: edge01, package: app}\n")})
	code, stdout, stderr := kptkit(t, dir, "--shard", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var report struct {
		Shard    string            `json:"shard"`
		Variants []json.RawMessage `json:"variants"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatal(err)
	}
	if fleet.ShardOf("edge01/app", 2) != 1 {
		t.Fatal("the test wants edge01/app in shard 1/2")
	}
	if report.Shard != "1/2" || len(report.Variants) != 1 {
		t.Errorf("the report: shard %q, %d variants, want 1/2 and 1:\n%s", report.Shard, len(report.Variants), stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "variants.status.1-of-2.yaml")); err != nil {
		t.Error(err)
	}
}

// fleetArgs is a render of the example fleet (its sets over its cluster)
// into out.
func fleetArgs(dir, out string, more ...string) []string {
	return append([]string{"kptkit", "variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"),
		"--upstream", filepath.Join(dir, "upstream"), "--out", out, "--render=false", "--jobs", "2"}, more...)
}

// runCLI runs kptkit with args; it returns the exit code and what it
// printed.
func runCLI(args ...string) (int, string, string) {
	var stdout, stderr strings.Builder
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// copyTree copies the folder from into to (which must not exist).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// gather applies to base what each shard's copy of it changed, as the
// recipes gather shards (each shard's changes, in any order): a file
// changed by two shards is an error. The status files stay out of it.
func gather(t *testing.T, base string, shards []string) map[string]string {
	t.Helper()
	isStatus := func(p string) bool { return strings.HasPrefix(p, "variants.status.") }
	was := snapshot(t, base, "")
	out := map[string]string{}
	for p, b := range was {
		if !isStatus(p) {
			out[p] = b
		}
	}
	by := map[string]string{}
	for _, s := range shards {
		now := snapshot(t, s, "")
		changed := func(p string) {
			if other, ok := by[p]; ok && !strings.HasSuffix(p, "/") { // a folder holds several shards' packages
				t.Errorf("%s is changed by %s and %s", p, other, s)
			}
			by[p] = s
		}
		for p, b := range now {
			if old, ok := was[p]; (!ok || old != b) && !isStatus(p) {
				changed(p)
				out[p] = b
			}
		}
		for p := range was {
			if _, ok := now[p]; !ok {
				changed(p)
				delete(out, p)
			}
		}
	}
	return out
}

// TestVariantsShards renders the example fleet whole and as 3 shards, each
// on its own copy of the output, twice: from nothing, then after a change
// to one set and with the other gone (--prune-all): the shards' changes
// put together are the whole run's output, and merge-status of their
// status files is the whole run's status byte for byte. Then each shard's
// --check passes on the gathered output, and its --dry-run and --json
// speak of its own variants only.
func TestVariantsShards(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	fleetDir := filepath.Join(tmp, "fleet")
	copyTree(t, filepath.Join("..", "..", "examples", "fan-out-variants-fleet"), fleetDir)
	base := filepath.Join(tmp, "base")
	if err := os.Mkdir(base, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 3
	for round, more := range [][]string{nil, {"--prune-all"}} {
		if round == 1 {
			set := filepath.Join(fleetDir, "variants", "ric-operator.yaml")
			b, _ := os.ReadFile(set)
			changed := strings.Replace(string(b), "    template:\n", "    template:\n      packageContext:\n        data:\n          tier: gold\n", 1)
			if err := os.WriteFile(set, []byte(changed), 0o644); err != nil || changed == string(b) {
				t.Fatalf("cannot change the set: %v", err)
			}
			if err := os.Remove(filepath.Join(fleetDir, "variants", "argo-cd-app.yaml")); err != nil {
				t.Fatal(err)
			}
		}
		whole := filepath.Join(tmp, fmt.Sprintf("whole-%d", round))
		copyTree(t, base, whole)
		if code, stdout, stderr := runCLI(fleetArgs(fleetDir, whole, more...)...); code != 0 {
			t.Fatalf("round %d, the whole run: exit %d\n%s%s", round, code, stdout, stderr)
		}
		var shards, statuses []string
		for k := range n {
			out := filepath.Join(tmp, fmt.Sprintf("shard-%d-%d", round, k))
			copyTree(t, base, out)
			if code, stdout, stderr := runCLI(fleetArgs(fleetDir, out, append(more, "--shard", fmt.Sprintf("%d/%d", k, n))...)...); code != 0 {
				t.Fatalf("round %d, shard %d: exit %d\n%s%s", round, k, code, stdout, stderr)
			}
			shards = append(shards, out)
			statuses = append(statuses, filepath.Join(out, fmt.Sprintf("variants.status.%d-of-%d.yaml", k, n)))
		}
		got := gather(t, base, shards)
		want := snapshot(t, whole, "")
		delete(want, "variants.status.yaml")
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("round %d: the shards put together (-whole +shards):\n%s", round, d)
		}
		merged := filepath.Join(tmp, fmt.Sprintf("merged-%d.yaml", round))
		if code, stdout, stderr := runCLI(append([]string{"kptkit", "variants", "merge-status", "-o", merged}, statuses...)...); code != 0 {
			t.Fatalf("merge-status: exit %d\n%s%s", code, stdout, stderr)
		}
		wantStatus, _ := os.ReadFile(filepath.Join(whole, "variants.status.yaml"))
		gotStatus, _ := os.ReadFile(merged)
		if d := cmp.Diff(string(wantStatus), string(gotStatus)); d != "" || len(wantStatus) == 0 {
			t.Errorf("round %d: merge-status (-whole +merged):\n%s", round, d)
		}
		base = whole
	}
	perShard(t, fleetDir, base, n)
}

// perShard: over an output that is up to date, each shard's --check
// passes; after an edit to one package, only its shard's --check fails and
// its --dry-run shows the edit; each shard's --json names its variants.
func perShard(t *testing.T, fleetDir, out string, n int) {
	edited := filepath.Join(out, "edge01", "ric-operator", "Kptfile")
	b, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, append(b, []byte("# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	var showing []int
	for k := range n {
		shard := fmt.Sprintf("%d/%d", k, n)
		code, stdout, stderr := runCLI(fleetArgs(fleetDir, out, "--prune-all", "--shard", shard, "--dry-run")...)
		mine := strings.Contains(stdout, "edge01/ric-operator/Kptfile")
		if mine {
			showing = append(showing, k)
		}
		if code != 0 {
			t.Errorf("shard %s --dry-run: exit %d\n%s%s", shard, code, stdout, stderr)
		}
		code, stdout, _ = runCLI(fleetArgs(fleetDir, out, "--prune-all", "--shard", shard, "--check", "--json")...)
		var report struct {
			Shard    string `json:"shard"`
			Variants []struct {
				Repo    string `json:"repo"`
				Package string `json:"package"`
			} `json:"variants"`
		}
		if err := json.Unmarshal([]byte(stdout), &report); err != nil {
			t.Fatalf("shard %s --json: %v\n%s", shard, err, stdout)
		}
		for _, v := range report.Variants {
			if got := fleet.ShardOf(v.Repo+"/"+v.Package, n); got != k {
				t.Errorf("shard %s reports %s/%s, of shard %d", shard, v.Repo, v.Package, got)
			}
		}
		if wantCode := map[bool]int{true: 1, false: 0}[mine]; code != wantCode || report.Shard != shard {
			t.Errorf("shard %s --check: exit %d (want %d), shard %q", shard, code, wantCode, report.Shard)
		}
	}
	if d := cmp.Diff([]int{fleet.ShardOf("edge01/ric-operator", n)}, showing); d != "" {
		t.Errorf("the shards whose --dry-run shows the edit (-want +got):\n%s", d)
	}
}

// TestMergeStatusRefused: merge-status given a shard twice, a shard
// missing, files of two fleets or no file: refused naming the files, and
// -o is not written. A shard's --status FILE is written where given.
func TestMergeStatusRefused(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pv.yaml": pv("web", "  downstream: {repo: edge01, package: app}\n") + "---\n" +
		pv("db", "  downstream: {repo: edge02, package: app}\n")})
	status := func(shard, name string, more ...string) string {
		file := filepath.Join(dir, name)
		if code, stdout, stderr := kptkit(t, dir, append(more, "--shard", shard, "--status", file)...); code != 0 {
			t.Fatalf("--shard %s: exit %d\n%s%s", shard, code, stdout, stderr)
		}
		return file
	}
	s0, s1 := status("0/2", "s0.yaml"), status("1/2", "s1.yaml")
	other := status("1/2", "other.yaml", "--prune=false")
	three := status("0/3", "three.yaml")
	merged := filepath.Join(dir, "merged.yaml")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"twice", []string{s0, s1, s1}, 1, s1 + " and " + s1 + " are both shard 1/2: give each shard's file once"},
		{"missing", []string{s1}, 1, "shard 0/2 is missing (variants.status.0-of-2.yaml): give all 2 shards' files"},
		{"other fleet", []string{s0, other}, 1, "the files are of different fleets: "},
		{"other count", []string{s0, three}, 1, "the files are of different fleets: "},
		{"none", nil, 2, "no status files: give the N files of the fleet's shards (variants.status.K-of-N.yaml)"},
		{"no such file", []string{s0, filepath.Join(dir, "nope.yaml")}, 1, "cannot read the status file: open " + filepath.Join(dir, "nope.yaml") + ": no such file or directory"},
	} {
		code, stdout, stderr := runCLI(append([]string{"kptkit", "variants", "merge-status", "-o", merged}, c.args...)...)
		if code != c.code || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", c.name, code, stdout, stderr, c.code, c.want)
		}
		if _, err := os.Stat(merged); !os.IsNotExist(err) {
			t.Errorf("%s: -o is written", c.name)
		}
	}
	code, stdout, stderr := runCLI("kptkit", "variants", "merge-status", s1, s0)
	if code != 0 || !strings.Contains(stdout, "name: web") || !strings.Contains(stdout, "name: db") || strings.Contains(stdout, "kptkit.dev/shard") {
		t.Errorf("merge-status: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestShardStatusBounded: a status file larger than the bound is refused
// once one byte more than the bound is read, naming the file; one at the
// bound is read.
func TestShardStatusBounded(t *testing.T) {
	t.Parallel()
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
	name := filepath.Join(t.TempDir(), "variants.status.0-of-2.yaml")
	if err := os.WriteFile(name, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readShardStatus(name, krmfn.Size(len(doc))); err != nil {
		t.Errorf("a file at the bound: %v", err)
	}
	_, err := readShardStatus(name, krmfn.Size(len(doc)-1))
	want := "cannot read the status file " + name + ": the input is larger than"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a file past the bound: %v, want %q…", err, want)
	}
}
