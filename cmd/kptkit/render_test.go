package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

func TestMain(m *testing.M) {
	// The tests share one process: the built-ins see its environment.
	isolate = func() []string { return os.Environ() }
	os.Exit(m.Run())
}

// renderPkg is a package whose pipeline runs kptkit's own function by
// image (prefix ghcr.io/me/kptkit given with --builtin-prefix) and a
// built-in catalog function.
var renderPkg = kptpkg.Files{
	"Kptfile": []byte(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
pipeline:
  mutators:
  - image: ghcr.io/me/kptkit/set-package-context:v1
    configMap:
      env: prod
  - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4
    configMap:
      namespace: prod
`),
	"package-context.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: app\n"),
	"deploy.yaml":          []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app # the app\n"),
	"README.md":            []byte("# app\n"),
}

// renderedPkg is renderPkg after its pipeline ran.
func renderedPkg() kptpkg.Files {
	want := renderPkg.Clone()
	want["deploy.yaml"] = []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app # the app\n  namespace: prod\n")
	want["package-context.yaml"] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: app\n  env: prod\n")
	return want
}

func writePkg(t *testing.T, files kptpkg.Files) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "app")
	if err := pkgfs.Write(dir, nil, files); err != nil {
		t.Fatal(err)
	}
	return dir
}

func kptkitRun(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"kptkit"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

var timing = regexp.MustCompile(` in [0-9.]+m?s\n`)

func TestRenderInPlace(t *testing.T) {
	t.Parallel()
	dir := writePkg(t, renderPkg)
	results := filepath.Join(t.TempDir(), "results")
	code, stdout, stderr := kptkitRun("render", dir, "--builtin-prefix", "ghcr.io/me/kptkit", "--results-dir", results)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout: %q", stdout)
	}
	wantErr := `Package "app": 
[RUNNING] "ghcr.io/me/kptkit/set-package-context:v1"
[PASS] "ghcr.io/me/kptkit/set-package-context:v1" in T
[RUNNING] "ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4"
[PASS] "ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4" in T
  Results:
    [info]: namespace "" updated to "prod", 1 value(s) changed

Successfully executed 2 function(s) in 1 package(s).
For complete results, see ` + filepath.Join(results, "results.yaml") + "\n"
	if diff := cmp.Diff(wantErr, timing.ReplaceAllString(stderr, " in T\n")); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	got, err := pkgfs.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := renderedPkg()
	if diff := cmp.Diff(strs(want), strs(got)); diff != "" {
		t.Errorf("package (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(results, "results.yaml")); err != nil || !strings.Contains(string(b), "kind: FunctionResultList") {
		t.Errorf("results.yaml: %v\n%s", err, b)
	}
	// A second render changes nothing.
	if code, _, stderr := kptkitRun("render", dir, "--builtin-prefix=ghcr.io/me/kptkit"); code != 0 {
		t.Fatal(stderr)
	}
	again, _ := pkgfs.Read(dir)
	if !again.Equal(got) {
		t.Error("the second render changed the package")
	}
}

func TestRenderOutput(t *testing.T) {
	t.Parallel()
	dir := writePkg(t, renderPkg)
	code, stdout, stderr := kptkitRun("render", "-o", "stdout", "--builtin-prefix", "ghcr.io/me/kptkit", dir)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	for _, w := range []string{"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n", "namespace: prod", "config.kubernetes.io/path: 'deploy.yaml'"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	if got, _ := pkgfs.Read(dir); !got.Equal(renderPkg) {
		t.Error("-o stdout changed the package")
	}

	code, stdout, _ = kptkitRun("render", "-o", "unwrap", "--builtin-prefix", "ghcr.io/me/kptkit", dir)
	if code != 0 || strings.Contains(stdout, "ResourceList") || strings.Contains(stdout, "config.kubernetes.io/path") || !strings.Contains(stdout, "namespace: prod") {
		t.Errorf("-o unwrap: exit %d\n%s", code, stdout)
	}
	rendered := renderedPkg()
	wantUnwrap := string(rendered["deploy.yaml"]) + "---\n" + string(rendered["Kptfile"]) + "---\n" + string(rendered["package-context.yaml"])
	if diff := cmp.Diff(wantUnwrap, stdout); diff != "" {
		t.Errorf("-o unwrap (-want +got):\n%s", diff)
	}

	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := kptkitRun("render", "--output", out, "--builtin-prefix", "ghcr.io/me/kptkit", dir); code != 0 {
		t.Fatal(stderr)
	}
	got, err := pkgfs.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["README.md"]; ok || len(got) != 3 || !strings.Contains(string(got["deploy.yaml"]), "namespace: prod") {
		t.Errorf("-o DIR wrote %v", strs(got))
	}
	delete(rendered, "README.md") // -o DIR writes the files holding resources
	if diff := cmp.Diff(strs(rendered), strs(got)); diff != "" {
		t.Errorf("-o DIR (-want +got):\n%s", diff)
	}
	code, _, stderr = kptkitRun("render", "--output", out, "--builtin-prefix", "ghcr.io/me/kptkit", dir)
	if code != 1 || !strings.Contains(stderr, "already exists, please delete the directory and retry") {
		t.Errorf("-o an existing folder: exit %d: %s", code, stderr)
	}
}

func TestRenderFailure(t *testing.T) {
	t.Parallel()
	files := renderPkg.Clone()
	files["Kptfile"] = []byte(strings.Replace(string(files["Kptfile"]), "namespace: prod", "wrong: key", 1))
	dir := writePkg(t, files)
	code, _, stderr := kptkitRun("render", dir, "--builtin-prefix", "ghcr.io/me/kptkit")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	wantErr := `[FAIL] "ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4" in T
  Results:
    [error]: ` + "`data.namespace` should not be empty" + `
  Stderr:
    "failed to evaluate function: error: function failure"
  Exit code: 1

`
	if !strings.Contains(timing.ReplaceAllString(stderr, " in T\n"), wantErr) {
		t.Errorf("stderr lacks\n%s\ngot:\n%s", wantErr, stderr)
	}
	if got, _ := pkgfs.Read(dir); !got.Equal(files) {
		t.Error("a failed render changed the package")
	}

	// Without the prefix, the kptkit image is anybody's: a container engine
	// runs it if one answers (none does here, or the image is not there).
	dir = writePkg(t, renderPkg)
	code, _, stderr = kptkitRun("render", dir)
	if code != 1 || !strings.Contains(stderr, "kptkit render: ghcr.io/me/kptkit/set-package-context:v1 (pipeline.mutators[0]) failed") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestRenderUsage(t *testing.T) {
	t.Parallel()
	code, stdout, _ := kptkitRun("render", "--help")
	if code != 0 {
		t.Errorf("--help: exit code %d", code)
	}
	for _, flag := range []string{"-allow-exec", "-results-dir", "-output", "-builtin-prefix", "-exec-for", "-truncate-output", "Usage: kptkit render [PKG]"} {
		if !strings.Contains(stdout, flag) {
			t.Errorf("--help lacks %s:\n%s", flag, stdout)
		}
	}
	if code, _, _ := kptkitRun("render", "--nope"); code != 2 {
		t.Errorf("an unknown flag: exit code %d, want 2", code)
	}
	if code, _, stderr := kptkitRun("render", "a", "b"); code != 2 || !strings.Contains(stderr, `kptkit render: unexpected argument "b"`) {
		t.Errorf("two packages: exit code %d, %s", code, stderr)
	}
	if code, _, stderr := kptkitRun("render", "--exec-for", "noequals"); code != 2 || !strings.Contains(stderr, "want IMAGE=PATH") {
		t.Errorf("--exec-for without =: exit code %d, %s", code, stderr)
	}
	if _, stdout, _ := kptkitRun("help"); !strings.Contains(stdout, "render") {
		t.Errorf("help does not list render:\n%s", stdout)
	}
}

func strs(f kptpkg.Files) map[string]string {
	m := map[string]string{}
	for p, b := range f {
		m[p] = string(b)
	}
	return m
}
