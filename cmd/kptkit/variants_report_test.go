package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVariantsReport: what variants render prints, whole. An invalid set
// is told by its errors alone, naming the user's variants file by its
// path (not "0 variants rendered … nothing changed" beside them, nor
// "functionConfig PackageVariantSet/…"); one variant is "1 variant".
func TestVariantsReport(t *testing.T) {
	t.Parallel()
	invalid := "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: hello\n" +
		"spec:\n  upstream: {repo: catalog, package: app, revisoin: 1}\n  targets:\n  - repositorySelector:\n      matchLabels: {tier: edge}\n"
	for _, tc := range []struct {
		name           string
		set            string
		code           int
		stdout, stderr string
	}{{
		name: "an invalid set",
		set:  invalid,
		code: 1,
		stderr: "error: DIR/variants/set.yaml: PackageVariantSet/hello: either spec.upstream.revision or spec.upstream.workspaceName must be specified\n" +
			`warning: DIR/variants/set.yaml: PackageVariantSet/hello: spec.upstream.revisoin: unknown field "revisoin" (did you mean "revision"?): ` +
			"Porch's PackageVariantSet has no such field and ignores it\n",
	}, {
		name:   "one variant",
		set:    pvs("hello", ""),
		stdout: "default/hello-edge01-app: created edge01/app from catalog/app@main\n1 variant rendered into DIR/out: 1 created, 0 updated, 0 unchanged, 0 deleted, 0 released, 0 failed\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, map[string]string{"variants/set.yaml": tc.set, "cluster/repos.yaml": repos("edge01")})
			code, stdout, stderr := kptkitIn(t, dir, "--render=false")
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if d := cmp.Diff(tc.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
		})
	}
}

// TestVariantsEngineFailureOnce: a variant whose image no container engine
// runs fails with one message, printed once (on stderr; its line on stdout
// says it failed), that names the image once.
func TestVariantsEngineFailureOnce(t *testing.T) {
	silent := t.TempDir() // a docker whose daemon does not answer
	script := "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(silent, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", silent)
	t.Setenv("KPT_FN_RUNTIME", "")
	set := pvs("web", "    template:\n      pipeline:\n        mutators:\n        - {name: x, image: example.com/fn:v1}\n")
	dir := workspace(t, map[string]string{"variants/set.yaml": set, "cluster/repos.yaml": repos("edge01", "edge02")})
	code, stdout, stderr := kptkitIn(t, dir)
	wantOut := "default/web-edge01-app: failed edge01/app from catalog/app@main\n" +
		"default/web-edge02-app: failed edge02/app from catalog/app@main\n" +
		"2 variants rendered into DIR/out: nothing changed: 0 created, 0 updated, 0 unchanged, 0 deleted, 0 released, 2 failed\n"
	failure := "example.com/fn:v1 (pipeline.mutators[0]) failed: it needs a container engine: docker does not answer " +
		"(Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?); " +
		"start docker or podman (KPT_FN_RUNTIME=podman), or give --exec-for IMAGE=PATH to run a binary of the function instead\n"
	wantErr := "failed: default/web-edge01-app (DIR/variants/set.yaml): " + failure + "failed: default/web-edge02-app (DIR/variants/set.yaml): " + failure
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if d := cmp.Diff(wantOut, stdout); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantErr, stderr); d != "" {
		t.Errorf("stderr (-want +got):\n%s", d)
	}
}

// kptkitIn renders the variants, cluster and upstream folders of dir into
// dir/out, with args; dir is DIR in the outputs.
func kptkitIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	code := run(append([]string{"kptkit", "variants", "render", "--jobs", "1", "--variants", filepath.Join(dir, "variants"),
		"--cluster", filepath.Join(dir, "cluster"), "--upstream", filepath.Join(dir, "upstream"), "--out", filepath.Join(dir, "out")}, args...),
		strings.NewReader(""), &stdout, &stderr)
	return code, strings.ReplaceAll(stdout.String(), dir, "DIR"), strings.ReplaceAll(stderr.String(), dir, "DIR")
}
