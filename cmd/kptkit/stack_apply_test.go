package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refsPackage writes a package whose names are environment references
// (pkger's bucket_ref.yml, which kpt itself refuses) to a temporary folder.
func refsPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: refs\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
		"bucket.yaml": "apiVersion: influxdata.com/v2alpha1\nkind: Bucket\nmetadata:\n  name:\n    envRef:\n      key: meta-name\n      default: meta\n" +
			"spec:\n  name:\n    envRef:\n      key: spec-name\n      default: spectacles\n  associations:\n    - kind: Label\n      name:\n        envRef:\n          key: label-meta-name\n",
		"label.yaml": "apiVersion: influxdata.com/v2alpha1\nkind: Label\nmetadata:\n  name:\n    envRef:\n      key: label-meta-name\n",
		"web.yaml":   "# kept: a Deployment and a local-config item share it\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
		"notes.txt":  "not a resource\n",
	})
	return dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readFiles returns a folder's files by relative path.
func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
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

func TestStackApply(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767261600") // 2026-01-01T10:00:00Z
	dir := refsPackage(t)
	before := readFiles(t, dir)
	out, stderr, code := runStackCmd(t, "apply", "--env", "meta-name=rucket-1", dir)
	want := "created Bucket/rucket-1\ncreated Label/env-label-meta-name\ncreated Deployment/web\n" +
		"recorded missingEnvRefs [label-meta-name spec-name], missingSecrets []\n"
	if code != 0 || stderr != "" || out != want {
		t.Fatalf("apply: exit %d, stderr %q, out (-want +got):\n%s", code, stderr, cmp.Diff(want, out))
	}
	after := readFiles(t, dir)
	stack := after["stack.yaml"]
	delete(after, "stack.yaml")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("apply changed the package's files (-before +after):\n%s", diff)
	}
	for _, s := range []string{"pkgName: rucket-1", "pkgName: env-label-meta-name", "missingEnvRefs:\n  - label-meta-name\n  - spec-name\n", `createdAt: "2026-01-01T10:00:00Z"`} {
		if !strings.Contains(stack, s) {
			t.Errorf("stack.yaml lacks %q:\n%s", s, stack)
		}
	}
	// Again: nothing changes, stack.yaml keeps its bytes.
	out, _, code = runStackCmd(t, "apply", "--env", "meta-name=rucket-1", dir)
	if code != 0 || out != "no changes\n" || readFiles(t, dir)["stack.yaml"] != stack {
		t.Errorf("re-apply: exit %d, %q; stack.yaml changed: %v", code, out, readFiles(t, dir)["stack.yaml"] != stack)
	}
}

func TestStackApplyRefused(t *testing.T) {
	t.Parallel()
	dir := refsPackage(t)
	before := readFiles(t, dir)
	out, stderr, code := runStackCmd(t, "apply", "--env", "meta-name=Rucket One", dir)
	want := `error: bucket.yaml: Bucket/Rucket One: kind=Bucket field=root[0].metadata.name reason="name \"Rucket One\" is invalid; a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name' or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" (the value of envRef "meta-name")
kptkit stack apply: refused: 1 error(s), nothing changed
`
	if code != 1 || out != "" || stderr != want {
		t.Errorf("exit %d, out %q, stderr (-want +got):\n%s", code, out, cmp.Diff(want, stderr))
	}
	if diff := cmp.Diff(before, readFiles(t, dir)); diff != "" {
		t.Errorf("a refused apply changed files (-before +after):\n%s", diff)
	}
}

func TestStackDiff(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767261600")
	dir := refsPackage(t)
	if _, stderr, code := runStackCmd(t, "apply", dir); code != 0 {
		t.Fatal(stderr)
	}
	before := readFiles(t, dir)
	out, stderr, code := runStackCmd(t, "diff", "--env", "spec-name=metrics", dir)
	want := `--- a/Bucket/meta
+++ b/Bucket/meta
@@ -3,5 +3,5 @@
 metadata:
   name: meta
 spec:
-  name: spectacles
+  name: metrics
 # associations: Label/env-label-meta-name
`
	if code != 0 || stderr != "" || out != want {
		t.Errorf("diff: exit %d, stderr %q, out (-want +got):\n%s", code, stderr, cmp.Diff(want, out))
	}
	out, _, code = runStackCmd(t, "diff", "--json", "--env", "spec-name=metrics", dir)
	for _, s := range []string{`"stateStatus": "exists"`, `"templateMetaName": "meta"`, `"name": "spectacles"`, `"name": "metrics"`, `"labelMappings": [`, `"resources": [`} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("diff --json lacks %q (exit %d):\n%s", s, code, out)
		}
	}
	if diff := cmp.Diff(before, readFiles(t, dir)); diff != "" {
		t.Errorf("diff changed files (-before +after):\n%s", diff)
	}
	// Nothing to change: no diff.
	if out, _, code := runStackCmd(t, "diff", dir); code != 0 || out != "" {
		t.Errorf("diff of an applied package: exit %d, %q", code, out)
	}
}

func TestStackShowSummary(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767261600")
	dir := refsPackage(t)
	out, stderr, code := runStackCmd(t, "show", "--summary", "--json", "--env", "label-meta-name=team", dir)
	for _, s := range []string{`"missingEnvRefs": [
    "meta-name",
    "spec-name"
  ]`, `"summaryTask": []`, `"envRefKey": "label-meta-name"`, `"value": "team"`, `"defaultValue": "spectacles"`, `"labelTemplateMetaName": "team"`, `"kind": "Deployment"`} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("show --summary --json lacks %q (exit %d, stderr %q):\n%s", s, code, stderr, out)
		}
	}
	yamlOut, _, code := runStackCmd(t, "show", "--summary", dir)
	if code != 0 || !strings.Contains(yamlOut, "missingEnvRefs:\n- label-meta-name\n- meta-name\n- spec-name\n") {
		t.Errorf("show --summary (YAML): exit %d\n%s", code, yamlOut)
	}
}

func TestStackUninstall(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767261600")
	dir := refsPackage(t)
	if _, stderr, code := runStackCmd(t, "apply", dir); code != 0 {
		t.Fatal(stderr)
	}
	applied := readFiles(t, dir)
	out, stderr, code := runStackCmd(t, "uninstall", "--delete-files", dir)
	want := "deleted Bucket/meta\ndeleted Label/env-label-meta-name\ndeleted Deployment/web\nuninstalled Stack/refs\ndeleted file bucket.yaml\ndeleted file label.yaml\n"
	if code != 0 || stderr != "" || out != want {
		t.Fatalf("uninstall: exit %d, stderr %q, out (-want +got):\n%s", code, stderr, cmp.Diff(want, out))
	}
	after := readFiles(t, dir)
	for _, gone := range []string{"bucket.yaml", "label.yaml"} {
		if _, ok := after[gone]; ok {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, kept := range []string{"Kptfile", "web.yaml", "notes.txt"} {
		if after[kept] != applied[kept] {
			t.Errorf("%s changed or is gone", kept)
		}
	}
	for _, s := range []string{"eventType: uninstall", "resources: []", "stackID:"} {
		if !strings.Contains(after["stack.yaml"], s) {
			t.Errorf("stack.yaml lacks %q:\n%s", s, after["stack.yaml"])
		}
	}
	// Again: nothing left to uninstall.
	if out, _, code := runStackCmd(t, "uninstall", dir); code != 0 || out != "no changes\n" {
		t.Errorf("second uninstall: exit %d, %q", code, out)
	}
}

func TestStackApplyErrors(t *testing.T) {
	t.Parallel()
	dir := refsPackage(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad env", []string{"apply", "--env", "novalue", dir}, 2, `kptkit stack apply: --env: invalid value "novalue": want KEY=VALUE`},
		{"env without summary", []string{"show", "--env", "a=b", dir}, 2, "--env and --secret go with --summary"},
		{"summary table", []string{"show", "--summary", "--table", dir}, 2, "--summary and --table: the summary is YAML or JSON"},
		{"uninstall without package", []string{"uninstall"}, 2, "name the package to uninstall"},
		{"uninstall without a Stack", []string{"uninstall", dir}, 1, "the package has no Stack to uninstall"},
		{"apply to one file", []string{"apply", filepath.Join(dir, "web.yaml")}, 1, "name a package folder: the Stack is written into it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runStackCmd(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestStackApplyFlagMistakes: the ApplyStack the flags make is checked as
// apply-stack checks its functionConfig, each mistake naming its flag, all
// at once (exit 2); nothing is written.
func TestStackApplyFlagMistakes(t *testing.T) {
	t.Parallel()
	dir := refsPackage(t)
	before := readFiles(t, dir)
	_, stderr, code := runStackCmd(t, "apply", "--stack", "a b", "--secret", " ", "--env", " =x", dir)
	want := `kptkit stack apply: --stack: stack name "a b" must not contain "/" or white space
--env: an environment reference's key must not be empty
--secret: a secret's key must not be empty
Run 'kptkit stack apply --help' for usage.
`
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr (-want +got):\n%s", code, cmp.Diff(want, stderr))
	}
	if diff := cmp.Diff(before, readFiles(t, dir)); diff != "" {
		t.Errorf("files changed (-before +after):\n%s", diff)
	}
}

// TestStackUninstallAllOrNothing: uninstall --delete-files writes the
// Stack and deletes the files in one write: when a step of it fails (a
// full disk), every file is as it was.
func TestStackUninstallAllOrNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs kptkit as a process of its own")
	}
	dir := refsPackage(t)
	env := []string{"SOURCE_DATE_EPOCH=1767261600"}
	if out, err := helper(env, "stack", "apply", dir).CombinedOutput(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	applied := readFiles(t, dir)
	cmd := helper(append(env, `KPTKIT_HELPER_FAIL=^label\.yaml$`), "stack", "uninstall", "--delete-files", dir)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	wantErr := "kptkit stack uninstall: cannot write " + dir + ": no space left on device\n"
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || stderr.String() != wantErr {
		t.Errorf("uninstall: %v, stderr (-want +got):\n%s", err, cmp.Diff(wantErr, stderr.String()))
	}
	if diff := cmp.Diff(applied, readFiles(t, dir)); diff != "" {
		t.Errorf("a failed uninstall changed files (-before +after):\n%s", diff)
	}
}
