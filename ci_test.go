package kptkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ciStep is a step of the GitHub Actions job in docs/ci.md.
type ciStep struct {
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Run  string            `yaml:"run"`
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
}

// ciJob reads the job of docs/ci.md: the yaml block that holds `jobs:`.
func ciJob(t *testing.T) []ciStep {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?jobs:.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/ci.md has no yaml block with a job")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []ciStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(m[1], &wf); err != nil {
		t.Fatalf("docs/ci.md: the workflow: %v", err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("docs/ci.md: want one job, found %d", len(wf.Jobs))
	}
	for _, j := range wf.Jobs {
		return j.Steps
	}
	return nil
}

// runJob runs the job's run: steps in dir as GitHub's runner does: in
// order, each with bash -eo pipefail; after a failed step only those with
// `if: failure()` or `always()`. Steps whose comment names a README test
// exception (installing from the network) are left out: kptkit is on PATH.
// It returns whether the job failed and what the steps printed.
func runJob(t *testing.T, dir string, env []string, steps []ciStep) (failed bool, log string) {
	t.Helper()
	return runSteps(t, dir, env, steps, nil)
}

// runSteps runs steps as runJob does; a uses: step goes to uses, when it
// is given (the artifacts of a matrix), and is left out otherwise.
func runSteps(t *testing.T, dir string, env []string, steps []ciStep, uses func(ciStep) error) (failed bool, log string) {
	t.Helper()
	var out strings.Builder
	for _, s := range steps {
		if s.Run == "" && (s.Uses == "" || uses == nil) {
			continue
		}
		cond := strings.TrimSpace(s.If)
		switch {
		case cond == "always()":
		case cond == "failure()" && !failed, cond != "failure()" && failed:
			continue
		}
		if skip := readmeSkip(commentsOf(s.Run)); skip != "" {
			continue
		}
		if s.Run == "" {
			if err := uses(s); err != nil {
				out.WriteString("## " + s.Uses + "\n(failed: " + err.Error() + ")\n")
				failed = true
			}
			continue
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
		cmd.Dir, cmd.Env = dir, env
		b, err := cmd.CombinedOutput()
		out.WriteString("## " + s.Name + "\n" + string(b))
		if err != nil {
			out.WriteString("(failed: " + err.Error() + ")\n")
			failed = true
		}
	}
	return failed, out.String()
}

// readmeSkip names the README test exception a comment gives, if any.
func readmeSkip(comments string) string {
	for _, e := range readmeExceptions {
		if strings.Contains(comments, e) {
			return e
		}
	}
	return ""
}

// TestCIJob runs docs/ci.md's job over a fleet repository made from
// examples/fan-out-variants-fleet (its ric-operator set, whose packages
// render with no container engine): it passes on the committed output;
// after a change to the set it fails, and the job summary shows the diff.
func TestCIJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kptkit and renders a fleet")
	}
	if os.Getenv(nestedEnv) != "" {
		t.Skip("run by a command of the documentation")
	}
	t.Parallel()
	steps := ciJob(t)
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
	summary := filepath.Join(tmp, "step-summary.md")
	env := append(readmeEnv(repo), "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summary, "CI=true")

	// What the fleet renders to, committed.
	mustRun(t, repo, "git", "init", "-q", "-b", "main")
	render := exec.Command(filepath.Join(bin, "kptkit"), "variants", "render", "--variants", "fleet/variants",
		"--cluster", "fleet/cluster", "--upstream", "fleet/upstream", "--out", "deployments")
	render.Dir, render.Env = repo, env
	if out, err := render.CombinedOutput(); err != nil {
		t.Fatalf("rendering the fleet: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("fleet-summary.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, repo, "git", "add", "-A")
	mustRun(t, repo, "git", "commit", "-q", "-m", "the fleet, rendered")

	if failed, log := runJob(t, repo, env, steps); failed {
		t.Fatalf("the job fails on the committed output:\n%s", log)
	}
	b, err := os.ReadFile(filepath.Join(repo, "fleet-summary.json"))
	if err != nil || !strings.Contains(string(b), `"unchanged": 3`) {
		t.Errorf("fleet-summary.json does not count 3 unchanged variants (%v):\n%s", err, b)
	}
	if status := mustRun(t, repo, "git", "status", "--porcelain"); status != "" {
		t.Errorf("the job changed the checkout:\n%s", status)
	}

	// A change to the set that the committed output does not have.
	set := filepath.Join(repo, "fleet", "variants", "ric-operator.yaml")
	b, err = os.ReadFile(set)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), "    template:\n", "    template:\n      packageContext:\n        data:\n          tier: gold\n", 1)
	if changed == string(b) {
		t.Fatal("the set has no template to change")
	}
	if err := os.WriteFile(set, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	failed, log := runJob(t, repo, env, steps)
	if !failed {
		t.Fatalf("the job passes when the committed output is stale:\n%s", log)
	}
	s, _ := os.ReadFile(summary)
	if !strings.Contains(string(s), "+  tier: gold") {
		t.Errorf("the job summary does not show the change:\n%s\nlog:\n%s", s, log)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "fleet-summary.json")); !strings.Contains(string(b), `"updated": 3`) {
		t.Errorf("fleet-summary.json does not count 3 updated variants:\n%s", b)
	}
}
