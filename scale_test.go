package kptkit_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The fields of batch/v1 Job (and the PodSpec and Container in it) the
// manifests of docs/scale.md may use: a field the API lacks, or one
// misspelled, fails to decode (KnownFields).
type (
	k8sJob struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   k8sMeta    `yaml:"metadata"`
		Spec       k8sJobSpec `yaml:"spec"`
	}
	k8sMeta struct {
		Name        string            `yaml:"name"`
		Namespace   string            `yaml:"namespace"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	}
	k8sJobSpec struct {
		CompletionMode          string `yaml:"completionMode"`
		Completions             *int   `yaml:"completions"`
		Parallelism             *int   `yaml:"parallelism"`
		BackoffLimit            *int   `yaml:"backoffLimit"`
		BackoffLimitPerIndex    *int   `yaml:"backoffLimitPerIndex"`
		ActiveDeadlineSeconds   *int   `yaml:"activeDeadlineSeconds"`
		TTLSecondsAfterFinished *int   `yaml:"ttlSecondsAfterFinished"`
		Template                struct {
			Metadata k8sMeta    `yaml:"metadata"`
			Spec     k8sPodSpec `yaml:"spec"`
		} `yaml:"template"`
	}
	k8sPodSpec struct {
		RestartPolicy      string         `yaml:"restartPolicy"`
		ServiceAccountName string         `yaml:"serviceAccountName"`
		InitContainers     []k8sContainer `yaml:"initContainers"`
		Containers         []k8sContainer `yaml:"containers"`
		Volumes            []k8sVolume    `yaml:"volumes"`
	}
	k8sContainer struct {
		Name         string   `yaml:"name"`
		Image        string   `yaml:"image"`
		Command      []string `yaml:"command"`
		Args         []string `yaml:"args"`
		WorkingDir   string   `yaml:"workingDir"`
		Env          []k8sEnv `yaml:"env"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
			ReadOnly  bool   `yaml:"readOnly"`
			SubPath   string `yaml:"subPath"`
		} `yaml:"volumeMounts"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
	}
	k8sEnv struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	}
	k8sVolume struct {
		Name     string `yaml:"name"`
		EmptyDir *struct {
			Medium    string `yaml:"medium"`
			SizeLimit string `yaml:"sizeLimit"`
		} `yaml:"emptyDir"`
		Secret *struct {
			SecretName string `yaml:"secretName"`
		} `yaml:"secret"`
	}
)

// scaleJobs reads the Job manifests of docs/scale.md, each decoded with
// only the fields of batch/v1 allowed, and checks what the API requires
// of them.
func scaleJobs(t *testing.T) []k8sJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("docs", "scale.md"))
	if err != nil {
		t.Fatal(err)
	}
	var jobs []k8sJob
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(b, -1) {
		if !bytes.Contains(m[1], []byte("\nkind: Job\n")) {
			continue
		}
		var j k8sJob
		dec := yaml.NewDecoder(bytes.NewReader(m[1]))
		dec.KnownFields(true)
		if err := dec.Decode(&j); err != nil {
			t.Fatalf("docs/scale.md: a Job: %v", err)
		}
		if msgs := checkJob(j); len(msgs) > 0 {
			t.Errorf("docs/scale.md: Job %s: %s", j.Metadata.Name, strings.Join(msgs, "; "))
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// checkJob returns what the API would refuse of a Job.
func checkJob(j k8sJob) []string {
	var msgs []string
	p := j.Spec.Template.Spec
	if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Metadata.Name == "" {
		msgs = append(msgs, "want apiVersion batch/v1, kind Job and a name")
	}
	if !slices.Contains([]string{"", "NonIndexed", "Indexed"}, j.Spec.CompletionMode) {
		msgs = append(msgs, "completionMode is Indexed or NonIndexed")
	}
	if j.Spec.CompletionMode == "Indexed" && j.Spec.Completions == nil {
		msgs = append(msgs, "an Indexed Job needs completions")
	}
	if p.RestartPolicy != "Never" && p.RestartPolicy != "OnFailure" {
		msgs = append(msgs, "a Job's pods restart Never or OnFailure")
	}
	volumes := map[string]bool{}
	for _, v := range p.Volumes {
		volumes[v.Name] = true
	}
	for _, c := range append(slices.Clone(p.InitContainers), p.Containers...) {
		if c.Name == "" || c.Image == "" {
			msgs = append(msgs, "a container needs a name and an image")
		}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] || m.MountPath == "" {
				msgs = append(msgs, fmt.Sprintf("container %s mounts %q, which is not a volume of the pod", c.Name, m.Name))
			}
		}
	}
	return msgs
}

// podScript is a container's script as the test runs it: without the
// lines that need the network (kptkit is on PATH), its volume /work at
// work.
func podScript(c k8sContainer, work string) string {
	var lines []string
	for line := range strings.Lines(c.Args[0]) {
		if !strings.Contains(line, "(needs the network)") {
			lines = append(lines, strings.ReplaceAll(line, "/work", work))
		}
	}
	return strings.Join(lines, "")
}

// TestScaleJobs: docs/scale.md's Indexed Job and gathering Job use only
// batch/v1's fields; the render Job is Indexed, its pods' --shard is its
// completions, each pod with its own emptyDir. Every pod's script, run
// with its index against a local bare repository, then the gather's, push
// to main the output of one whole run, byte for byte.
func TestScaleJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kptkit and renders a fleet")
	}
	if os.Getenv(nestedEnv) != "" {
		t.Skip("run by a command of the documentation")
	}
	t.Parallel()
	jobs := scaleJobs(t)
	if len(jobs) != 2 {
		t.Fatalf("docs/scale.md: want the render Job and the gather Job, found %d Jobs", len(jobs))
	}
	render, gather := jobs[0], jobs[1]
	n := *render.Spec.Completions
	pod := render.Spec.Template.Spec
	if render.Spec.CompletionMode != "Indexed" || render.Spec.Parallelism == nil || len(pod.Containers) != 1 ||
		!strings.Contains(pod.Containers[0].Args[0], fmt.Sprintf("--shard %d\n", n)) ||
		len(pod.Volumes) != 1 || pod.Volumes[0].EmptyDir == nil {
		t.Fatalf("docs/scale.md: the render Job is not Indexed with parallelism, one container whose --shard is its completions (%d), and an emptyDir volume", n)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-trimpath", "-o", bin+string(filepath.Separator), "./cmd/kptkit")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := fleetRepo(t, tmp, bin)
	remote := filepath.Join(tmp, "remote.git")
	mustRun(t, "", "git", "clone", "-q", "--bare", repo, remote)
	env := append(readmeEnv(tmp), "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"), "FLEET_REPO="+remote)
	runPod := func(c k8sContainer, name string, extra ...string) {
		t.Helper()
		work := filepath.Join(tmp, name)
		if err := os.Mkdir(work, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(c.Command[0], append(c.Command[1:], podScript(c, work))...)
		cmd.Dir, cmd.Env = work, append(slices.Clone(env), extra...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	for k := range n {
		runPod(pod.Containers[0], fmt.Sprintf("pod-%d", k), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k))
	}
	runPod(gather.Spec.Template.Spec.Containers[0], "gather")

	result := filepath.Join(tmp, "result")
	mustRun(t, "", "git", "clone", "-q", remote, result)
	whole := filepath.Join(tmp, "whole")
	mustRun(t, "", "git", "clone", "-q", repo, whole)
	renderWhole(t, whole, bin, env)
	if d := cmp.Diff(treeOf(t, filepath.Join(whole, "deployments")), treeOf(t, filepath.Join(result, "deployments"))); d != "" {
		t.Errorf("main after the gather Job (-one run +shards):\n%s", d)
	}
	if refs := mustRun(t, remote, "git", "for-each-ref", "refs/heads/fleet-shards"); refs != "" {
		t.Errorf("the shards' refs are left:\n%s", refs)
	}
}

// fleetRepo makes a fleet repository of examples/fan-out-variants-fleet's
// ric-operator set, rendered and committed, then a change to the set
// committed: what the shards render.
func fleetRepo(t *testing.T, tmp, bin string) string {
	t.Helper()
	repo := filepath.Join(tmp, "fleet-repo")
	example := filepath.Join("examples", "fan-out-variants-fleet")
	mustRun(t, "", "mkdir", "-p", filepath.Join(repo, "fleet", "variants"))
	mustRun(t, "", "cp", "-R", filepath.Join(example, "cluster"), filepath.Join(example, "upstream"), filepath.Join(repo, "fleet"))
	mustRun(t, "", "cp", filepath.Join(example, "variants", "ric-operator.yaml"), filepath.Join(repo, "fleet", "variants"))
	mustRun(t, repo, "git", "init", "-q", "-b", "main")
	renderWhole(t, repo, bin, readmeEnv(repo))
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
	return repo
}

// renderWhole renders the fleet repository's whole fleet into deployments/.
func renderWhole(t *testing.T, dir, bin string, env []string) {
	t.Helper()
	render := exec.Command(filepath.Join(bin, "kptkit"), "variants", "render", "--variants", "fleet/variants",
		"--cluster", "fleet/cluster", "--upstream", "fleet/upstream", "--out", "deployments", "--prune-all")
	render.Dir, render.Env = dir, env
	if out, err := render.CombinedOutput(); err != nil {
		t.Fatalf("rendering the fleet: %v\n%s", err, out)
	}
}
