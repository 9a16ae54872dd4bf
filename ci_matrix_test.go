package kptkit_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ciMatrixJob is a job of docs/ci.md's matrix workflow.
type ciMatrixJob struct {
	Needs    string `yaml:"needs"`
	Strategy struct {
		Matrix struct {
			Shard []int `yaml:"shard"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []ciStep `yaml:"steps"`
}

// ciMatrix reads docs/ci.md's matrix workflow: the yaml block whose job
// has a matrix; its render job (the matrix) and its gather job.
func ciMatrix(t *testing.T) (render, gather ciMatrixJob) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n([^`]*?matrix:.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/ci.md has no yaml block with a matrix")
	}
	var wf struct {
		Jobs map[string]ciMatrixJob `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(m[1], &wf); err != nil {
		t.Fatalf("docs/ci.md: the matrix workflow: %v", err)
	}
	render, gather = wf.Jobs["render"], wf.Jobs["gather"]
	if len(wf.Jobs) != 2 || len(render.Strategy.Matrix.Shard) == 0 || gather.Needs != "render" {
		t.Fatalf("docs/ci.md: want a render job with a matrix of shards and a gather job that needs it, found %d jobs", len(wf.Jobs))
	}
	return render, gather
}

// withShard returns the steps with ${{ matrix.shard }} replaced, as the
// runner does for each value of the matrix.
func withShard(steps []ciStep, shard int) []ciStep {
	re := regexp.MustCompile(`\$\{\{\s*matrix\.shard\s*\}\}`)
	sub := func(s string) string { return re.ReplaceAllString(s, strconv.Itoa(shard)) }
	out := make([]ciStep, len(steps))
	for i, s := range steps {
		s.Name, s.Run = sub(s.Name), sub(s.Run)
		with := map[string]string{}
		for k, v := range s.With {
			with[k] = sub(v)
		}
		s.With = with
		out[i] = s
	}
	return out
}

// artifacts carries actions/upload-artifact's folders to
// actions/download-artifact (with pattern and path: each artifact in
// path/<name>/, as v4 does); other uses: steps are left out.
func artifacts(store, dir string) func(ciStep) error {
	return func(s ciStep) error {
		name, _, _ := strings.Cut(s.Uses, "@")
		switch name {
		case "actions/upload-artifact":
			return exec.Command("cp", "-R", filepath.Join(dir, s.With["path"]), filepath.Join(store, s.With["name"])).Run()
		case "actions/download-artifact":
			entries, err := os.ReadDir(store)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if ok, _ := path.Match(s.With["pattern"], e.Name()); !ok {
					continue
				}
				target := filepath.Join(dir, s.With["path"], e.Name())
				if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
					return err
				}
				if err := exec.Command("cp", "-R", filepath.Join(store, e.Name()), target).Run(); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// checkoutCopy copies the repository as a checkout of its own: its index
// as fresh as actions/checkout leaves it.
func checkoutCopy(t *testing.T, repo, to string) {
	t.Helper()
	mustRun(t, "", "cp", "-R", repo, to)
	mustRun(t, to, "git", "update-index", "-q", "--refresh")
}

// treeOf returns the files below dir with their bytes.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCIMatrix runs docs/ci.md's matrix workflow over a fleet repository
// made from examples/fan-out-variants-fleet, after a change to its set:
// the render job once per shard, each on its own copy of the checkout,
// then the gather job on another; the deployments/ it commits equal one
// run of the whole fleet, status included.
func TestCIMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kptkit and renders a fleet")
	}
	if os.Getenv(nestedEnv) != "" {
		t.Skip("run by a command of the documentation")
	}
	t.Parallel()
	render, gather := ciMatrix(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-trimpath", "-o", bin+string(filepath.Separator), "./cmd/kptkit")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := filepath.Join(tmp, "fleet-repo")
	example := filepath.Join("examples", "fan-out-variants-fleet")
	mustRun(t, "", "mkdir", "-p", filepath.Join(repo, "fleet", "variants"))
	mustRun(t, "", "cp", "-R", filepath.Join(example, "cluster"), filepath.Join(example, "upstream"), filepath.Join(repo, "fleet"))
	mustRun(t, "", "cp", filepath.Join(example, "variants", "ric-operator.yaml"), filepath.Join(repo, "fleet", "variants"))
	env := append(readmeEnv(repo), "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"), "CI=true")
	kptkit := func(dir string) {
		t.Helper()
		render := exec.Command(filepath.Join(bin, "kptkit"), "variants", "render", "--variants", "fleet/variants",
			"--cluster", "fleet/cluster", "--upstream", "fleet/upstream", "--out", "deployments", "--prune-all")
		render.Dir, render.Env = dir, env
		if out, err := render.CombinedOutput(); err != nil {
			t.Fatalf("rendering the fleet: %v\n%s", err, out)
		}
	}

	// The fleet rendered and committed, then a change to its set pushed.
	mustRun(t, repo, "git", "init", "-q", "-b", "main")
	kptkit(repo)
	mustRun(t, repo, "git", "add", "-A")
	mustRun(t, repo, "git", "commit", "-q", "-m", "the fleet, rendered")
	set := filepath.Join(repo, "fleet", "variants", "ric-operator.yaml")
	b, err := os.ReadFile(set)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), "    template:\n", "    template:\n      packageContext:\n        data:\n          tier: gold\n", 1)
	if err := os.WriteFile(set, []byte(changed), 0o644); err != nil || changed == string(b) {
		t.Fatalf("cannot change the set: %v", err)
	}
	mustRun(t, repo, "git", "commit", "-q", "-am", "ric-operator: tier gold")

	store := filepath.Join(tmp, "artifacts")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, shard := range render.Strategy.Matrix.Shard {
		checkout := filepath.Join(tmp, fmt.Sprintf("shard-%d", shard))
		checkoutCopy(t, repo, checkout)
		if failed, log := runSteps(t, checkout, env, withShard(render.Steps, shard), artifacts(store, checkout)); failed {
			t.Fatalf("shard %d fails:\n%s", shard, log)
		}
	}
	checkout := filepath.Join(tmp, "gather")
	checkoutCopy(t, repo, checkout)
	failed, log := runSteps(t, checkout, env, gather.Steps, artifacts(store, checkout))
	if failed {
		t.Fatalf("the gather job fails:\n%s", log)
	}
	if !strings.Contains(log, "fleet: rendered in 3 shards") {
		t.Errorf("the gather job committed nothing:\n%s", log)
	}
	whole := filepath.Join(tmp, "whole")
	mustRun(t, "", "cp", "-R", repo, whole)
	kptkit(whole)
	want, got := treeOf(t, filepath.Join(whole, "deployments")), treeOf(t, filepath.Join(checkout, "deployments"))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the gathered deployments/ (-one run +shards):\n%s", d)
	}
	if !strings.Contains(want["edge01/ric-operator/package-context.yaml"], "tier: gold") {
		t.Errorf("the whole run did not take the change:\n%s", want["edge01/ric-operator/package-context.yaml"])
	}
	if st := mustRun(t, checkout, "git", "status", "--porcelain", "--", "deployments"); st != "" {
		t.Errorf("the gather job left deployments/ uncommitted:\n%s", st)
	}
}
