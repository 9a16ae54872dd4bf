package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// The upstream package the fleet tests clone.
var appFiles = map[string]string{
	"upstream/app/Kptfile":              "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
	"upstream/app/cm.yaml":              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: prod\n",
	"upstream/app/package-context.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: app\n",
}

// pv returns a PackageVariant of the upstream app.
func pv(name, spec string) string {
	return "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: " + name +
		"\nspec:\n  upstream: {repo: catalog, package: app, workspaceName: main}\n" + spec
}

// workspace writes files (slash paths) into a new folder; it also holds a
// folder beside the output, victim/, that no run may touch.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"victim/keep.txt": "precious\n", "out/README.md": "not a package: kept\n"}
	for p, c := range appFiles {
		all[p] = c
	}
	for p, c := range files {
		all[p] = c
	}
	for p, c := range all {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// snapshot returns every file and folder below dir with its content,
// except those below skip.
func snapshot(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if skip != "" && (rel == skip || strings.HasPrefix(rel, skip+string(filepath.Separator))) {
			return nil
		}
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// packages lists the package folders below dir/out.
func packages(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for p := range snapshot(t, filepath.Join(dir, "out"), "") {
		if strings.HasSuffix(p, "/Kptfile") {
			out = append(out, strings.TrimSuffix(p, "/Kptfile"))
		}
	}
	slices.Sort(out)
	return out
}

func kptkit(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	full := append([]string{"kptkit", "variants", "render", "--variants", filepath.Join(dir, "variants"),
		"--upstream", filepath.Join(dir, "upstream"), "--out", filepath.Join(dir, "out"), "--render=false", "--jobs", "2"}, args...)
	code := run(full, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestVariantsDataLoss: every way a new user made the first sketch delete
// or overwrite what was not its own is refused with a clear message, and
// nothing outside the output's own packages changes.
func TestVariantsDataLoss(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		variants  string
		wantCode  int
		wantErr   []string
		wantPkgs  []string
		wantOut   []string
		unchanged bool // the output folder itself is left as it was
	}{{
		name:      "a repo of .. would write beside the output",
		variants:  pv("evil", "  downstream: {repo: '..', package: victim}\n"),
		wantCode:  1,
		wantErr:   []string{`spec.downstream.repo ".." must stay inside its folder: no ".." segment`},
		unchanged: true,
	}, {
		name:      "a package of .. with no repo would remove the output's parent",
		variants:  pv("evil", "  downstream: {package: '..'}\n"),
		wantCode:  1,
		wantErr:   []string{"missing required field spec.downstream.repo", `spec.downstream.package ".." must stay inside its folder`},
		unchanged: true,
	}, {
		name:      "repo . and package . would remove the output",
		variants:  pv("evil", "  downstream: {repo: '.', package: '.'}\n"),
		wantCode:  1,
		wantErr:   []string{`spec.downstream.repo "." must stay inside its folder: no "." segment`, `spec.downstream.package "." must stay inside its folder`},
		unchanged: true,
	}, {
		name:      "an absolute package path",
		variants:  pv("evil", "  downstream: {repo: edge01, package: /etc/app}\n"),
		wantCode:  1,
		wantErr:   []string{`spec.downstream.package "/etc/app" is absolute: it must be relative`},
		unchanged: true,
	}, {
		name:      "an empty repo is Porch's missing field",
		variants:  pv("empty-repo", "  downstream: {repo: '', package: app}\n"),
		wantCode:  1,
		wantErr:   []string{"missing required field spec.downstream.repo"},
		unchanged: true,
	}, {
		name: "two variants writing one package: neither is written",
		variants: pv("first", "  downstream: {repo: edge01, package: app}\n") + "---\n" +
			pv("second", "  downstream: {repo: edge01, package: app}\n") + "---\n" +
			pv("other", "  downstream: {repo: edge02, package: app}\n"),
		wantCode: 1,
		wantErr:  []string{"PackageVariants default/first and default/second both write the downstream package edge01/app"},
		wantPkgs: []string{"edge02/app"},
	}, {
		name: "a package inside another's folder",
		variants: pv("outer", "  downstream: {repo: edge01, package: app}\n") + "---\n" +
			pv("inner", "  downstream: {repo: edge01, package: app/sub}\n"),
		wantCode:  1,
		wantErr:   []string{"the downstream package edge01/app/sub of PackageVariant default/inner lies inside the package edge01/app of PackageVariant default/outer"},
		unchanged: true,
	}, {
		name: "a reserved package-context key: the package is not written",
		variants: pv("reserved", "  downstream: {repo: edge01, package: app}\n  packageContext:\n    data: {name: other}\n") + "---\n" +
			pv("fine", "  downstream: {repo: edge02, package: app}\n"),
		wantCode: 1,
		wantErr:  []string{`spec.packageContext.data: Invalid value: {"name":"other"}: must not contain the key "name"`},
		wantPkgs: []string{"edge02/app"},
		wantOut:  []string{"2 variants rendered into", "1 created, 0 updated, 0 unchanged, 0 deleted, 0 released, 1 failed"},
	}, {
		name:     "a key a ConfigMap refuses",
		variants: pv("bad-key", "  downstream: {repo: edge01, package: app}\n  packageContext:\n    data: {'bad key': x}\n"),
		wantCode: 1,
		wantErr:  []string{`spec.packageContext.data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, map[string]string{"variants/pvs.yaml": tc.variants})
			before := snapshot(t, dir, "out")
			beforeOut := snapshot(t, filepath.Join(dir, "out"), "")
			code, stdout, stderr := kptkit(t, dir)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, stdout, stderr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if diff := cmp.Diff(before, snapshot(t, dir, "out")); diff != "" {
				t.Errorf("files outside the output changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPkgs, packages(t, dir)); diff != "" {
				t.Errorf("packages (-want +got):\n%s", diff)
			}
			if tc.unchanged {
				after := snapshot(t, filepath.Join(dir, "out"), "")
				delete(after, "variants.status.yaml")
				if diff := cmp.Diff(beforeOut, after); diff != "" {
					t.Errorf("the output changed (-before +after):\n%s", diff)
				}
			}
		})
	}
}

// pvs is a PackageVariantSet of the upstream app over the Repositories
// labelled tier: edge.
func pvs(name, template string) string {
	return "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: " + name +
		"\nspec:\n  upstream: {repo: catalog, package: app, workspaceName: main}\n  targets:\n  - repositorySelector:\n      matchLabels: {tier: edge}\n" + template
}

func repos(names ...string) string {
	var docs []string
	for _, n := range names {
		docs = append(docs, "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: "+n+
			"\n  labels: {tier: edge}\nspec:\n  type: git\n  deployment: true\n  git: {repo: https://git.example.com/"+n+".git}\n")
	}
	return strings.Join(docs, "---\n")
}

func writeFile(t *testing.T, dir, p, content string) {
	t.Helper()
	target := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVariantsWriteErrorFailsOneVariant(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{
		"variants/pvs.yaml": pv("a", "  downstream: {repo: edge01, package: app}\n") + "---\n" + pv("b", "  downstream: {repo: edge02, package: app}\n"),
		// edge01 is a file: the first variant cannot be written.
		"out/edge01": "in the way\n",
	})
	code, stdout, stderr := kptkit(t, dir)
	if code != 1 || !strings.Contains(stdout, "1 created, 0 updated, 0 unchanged, 0 deleted, 0 released, 1 failed") ||
		!strings.Contains(stderr, "failed: default/a") || !strings.Contains(stderr, "the downstream package edge01/app: openat edge01/app: not a directory") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if diff := cmp.Diff([]string{"edge02/app"}, packages(t, dir)); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
}

func TestVariantsSymlinkOutOfTheOutput(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pvs.yaml": pv("a", "  downstream: {repo: edge01, package: app}\n")})
	if err := os.Symlink(filepath.Join(dir, "victim"), filepath.Join(dir, "out", "edge01")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir, "out")
	code, _, stderr := kptkit(t, dir)
	if code != 1 || !strings.Contains(stderr, "edge01/app") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if diff := cmp.Diff(before, snapshot(t, dir, "out")); diff != "" {
		t.Errorf("files outside the output changed (-before +after):\n%s", diff)
	}
}

// TestVariantsSetReconcilesItsChildren: children of a set given in the run
// are the set's to reconcile; a stale one is never rendered on its own.
func TestVariantsSetReconcilesItsChildren(t *testing.T) {
	t.Parallel()
	stale := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: apps-edge01-app\n" +
		"  labels: {config.porch.kpt.dev/packagevariantset: apps}\nspec:\n  upstream: {repo: catalog, package: app, workspaceName: main}\n" +
		"  downstream: {repo: edge01, package: stale-app}\n"
	dir := workspace(t, map[string]string{
		"variants/set.yaml":   pvs("apps", ""),
		"variants/stale.yaml": stale,
		"cluster/repos.yaml":  repos("edge01", "edge02"),
	})
	code, stdout, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if diff := cmp.Diff([]string{"edge01/app", "edge02/app"}, packages(t, dir)); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
}

// TestVariantsOwnership: a package no variant owns is adopted only by
// adoptExisting; one another variant of the run owns is never taken.
func TestVariantsOwnership(t *testing.T) {
	t.Parallel()
	mine := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
	dir := workspace(t, map[string]string{
		"variants/pvs.yaml":      pv("a", "  downstream: {repo: edge01, package: app}\n"),
		"out/edge01/app/Kptfile": mine, "out/edge01/app/hand.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: by-hand\n",
	})
	before := snapshot(t, filepath.Join(dir, "out"), "")
	code, _, stderr := kptkit(t, dir)
	if code != 1 || !strings.Contains(stderr, "the downstream package edge01/app exists and no PackageVariant owns it: set spec.adoptionPolicy to adoptExisting to adopt it") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	after := snapshot(t, filepath.Join(dir, "out"), "")
	delete(after, "variants.status.yaml")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("an unowned package changed (-before +after):\n%s", diff)
	}
	writeFile(t, dir, "variants/pvs.yaml", pv("a", "  adoptionPolicy: adoptExisting\n  downstream: {repo: edge01, package: app}\n")+"---\n"+
		pv("b", "  adoptionPolicy: adoptExisting\n  downstream: {repo: edge02, package: app}\n"))
	if code, stdout, stderr := kptkit(t, dir); code != 0 || !strings.Contains(stdout, "default/a: updated edge01/app") {
		t.Errorf("adopting: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	kf, _ := os.ReadFile(filepath.Join(dir, "out/edge01/app/Kptfile"))
	if !strings.Contains(string(kf), "kptkit.dev/owner: default/a") {
		t.Errorf("the adopted package has no owner:\n%s", kf)
	}
	// b now asks for a's package: refused, a's package untouched.
	writeFile(t, dir, "variants/pvs.yaml", pv("a", "  downstream: {repo: edge01, package: app}\n")+"---\n"+
		pv("b", "  adoptionPolicy: adoptExisting\n  downstream: {repo: edge01, package: app}\n"))
	if code, _, stderr := kptkit(t, dir); code != 1 || !strings.Contains(stderr, "PackageVariants default/a and default/b both write the downstream package edge01/app") {
		t.Errorf("two owners: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestVariantsPrune: deletion stays within what the run was given.
func TestVariantsPrune(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{
		"variants/set.yaml":    pvs("apps", "    template:\n      deletionPolicy: delete\n"),
		"variants/direct.yaml": pv("direct", "  downstream: {repo: core, package: app}\n"),
		"variants/kept.yaml":   pv("orphaned", "  deletionPolicy: orphan\n  downstream: {repo: core, package: kept}\n"),
		"cluster/repos.yaml":   repos("edge01", "edge02"),
		// A package nobody owns is never touched.
		"out/lab/hand/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: hand\n",
	})
	cluster := filepath.Join(dir, "cluster")
	if code, stdout, stderr := kptkit(t, dir, "--cluster", cluster); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	all := []string{"core/app", "core/kept", "edge01/app", "edge02/app", "lab/hand"}
	if diff := cmp.Diff(all, packages(t, dir)); diff != "" {
		t.Fatalf("packages (-want +got):\n%s", diff)
	}
	// edge02 leaves the set; the direct variants leave the run.
	writeFile(t, dir, "cluster/repos.yaml", repos("edge01"))
	if err := os.Remove(filepath.Join(dir, "variants/direct.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "variants/kept.yaml")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := kptkit(t, dir, "--cluster", cluster, "--prune=false")
	if code != 0 || !strings.Contains(stdout, "0 deleted") {
		t.Errorf("--prune=false: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if diff := cmp.Diff(all, packages(t, dir)); diff != "" {
		t.Errorf("--prune=false deleted (-want +got):\n%s", diff)
	}
	code, stdout, _ = kptkit(t, dir, "--cluster", cluster)
	if code != 0 || !strings.Contains(stdout, "deleted edge02/app (default/apps-edge02-app no longer wants it)") {
		t.Errorf("prune: exit %d\nstdout:\n%s", code, stdout)
	}
	if diff := cmp.Diff([]string{"core/app", "core/kept", "edge01/app", "lab/hand"}, packages(t, dir)); diff != "" {
		t.Errorf("the set's dropped child (-want +got):\n%s", diff)
	}
	code, stdout, _ = kptkit(t, dir, "--cluster", cluster, "--prune-all")
	if code != 0 || !strings.Contains(stdout, "deleted core/app") || !strings.Contains(stdout, "released core/kept") {
		t.Errorf("--prune-all: exit %d\nstdout:\n%s", code, stdout)
	}
	if diff := cmp.Diff([]string{"core/kept", "edge01/app", "lab/hand"}, packages(t, dir)); diff != "" {
		t.Errorf("--prune-all (-want +got):\n%s", diff)
	}
	kf, _ := os.ReadFile(filepath.Join(dir, "out/core/kept/Kptfile"))
	if strings.Contains(string(kf), "kptkit.dev/") {
		t.Errorf("a released package keeps ownership annotations:\n%s", kf)
	}
}

// TestVariantsDryRunAndCheck: --dry-run and --check write nothing; the dry
// run prints the diff, the check fails exactly when something would change.
func TestVariantsDryRunAndCheck(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pvs.yaml": pv("a", "  downstream: {repo: edge01, package: app}\n")})
	before := snapshot(t, dir, "")
	code, stdout, stderr := kptkit(t, dir, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, stderr)
	}
	for _, w := range []string{"--- /dev/null\n+++ b/" + strings.TrimPrefix(filepath.Join(dir, "out"), "/") + "/edge01/app/cm.yaml\n@@ -0,0 +1,6 @@\n+apiVersion: v1\n",
		"1 created, 0 updated"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("dry run output lacks %q:\n%s", w, stdout)
		}
	}
	if code, _, stderr = kptkit(t, dir, "--check"); code != 1 || !strings.Contains(stderr, "--check: the output is not what the variants render to") {
		t.Errorf("check before rendering: exit %d\n%s", code, stderr)
	}
	if diff := cmp.Diff(before, snapshot(t, dir, "")); diff != "" {
		t.Errorf("--dry-run or --check wrote (-before +after):\n%s", diff)
	}
	if code, _, stderr = kptkit(t, dir); code != 0 {
		t.Fatalf("render: exit %d\n%s", code, stderr)
	}
	rendered := snapshot(t, dir, "")
	if code, stdout, stderr = kptkit(t, dir, "--check"); code != 0 || !strings.Contains(stdout, "nothing changed") {
		t.Errorf("check after rendering: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// An edit by hand: the check sees it, the dry run shows what a render undoes.
	writeFile(t, dir, "out/edge01/app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: dev\n")
	if code, _, _ = kptkit(t, dir, "--check"); code != 1 {
		t.Errorf("check after an edit: exit %d", code)
	}
	if _, stdout, _ = kptkit(t, dir, "--dry-run"); !strings.Contains(stdout, "-  mode: dev\n+  mode: prod\n") {
		t.Errorf("dry run after an edit:\n%s", stdout)
	}
	writeFile(t, dir, "out/edge01/app/cm.yaml", rendered["out/edge01/app/cm.yaml"])
	if diff := cmp.Diff(rendered, snapshot(t, dir, "")); diff != "" {
		t.Errorf("(-rendered +now):\n%s", diff)
	}
}

func TestVariantsJSON(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pvs.yaml": pv("a", "  downstream: {repo: edge01, package: app}\n") + "---\n" + pv("b", "  downstream: {repo: '..', package: app}\n")})
	code, stdout, _ := kptkit(t, dir, "--json")
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	for _, w := range []string{`"name": "a"`, `"outcome": "created"`, `"outcome": "failed"`, `"reason": "Error"`,
		`"counts": {`, `"created": 1`, `"failed": 1`} {
		if !strings.Contains(stdout, w) {
			t.Errorf("JSON lacks %s:\n%s", w, stdout)
		}
	}
}

// TestVariantsAnyJobs: the output and the report are the same for any
// number of jobs.
func TestVariantsAnyJobs(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("edge%02d", i))
	}
	files := map[string]string{"variants/set.yaml": pvs("apps", ""), "cluster/repos.yaml": repos(names...)}
	var outs []map[string]string
	var reports []string
	for _, jobs := range []string{"1", "4", "16"} {
		dir := workspace(t, files)
		code, stdout, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster"), "--jobs", jobs)
		if code != 0 {
			t.Fatalf("--jobs %s: exit %d\n%s", jobs, code, stderr)
		}
		outs = append(outs, snapshot(t, filepath.Join(dir, "out"), ""))
		reports = append(reports, strings.ReplaceAll(stdout, dir, "DIR"))
	}
	for i := 1; i < len(outs); i++ {
		if diff := cmp.Diff(outs[0], outs[i]); diff != "" {
			t.Errorf("output differs with other jobs (-1 +n):\n%s", diff)
		}
		if diff := cmp.Diff(reports[0], reports[i]); diff != "" {
			t.Errorf("report differs with other jobs (-1 +n):\n%s", diff)
		}
	}
}

func TestVariantsUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"variants", "--help"}, 0, "Usage: kptkit variants <subcommand>", ""},
		{[]string{"variants", "render", "--help"}, 0, "-repo-map", ""},
		{[]string{"variants", "bogus"}, 2, "", `kptkit variants: unknown subcommand "bogus"`},
		{[]string{"variants", "render", "--variants", "x"}, 2, "", "--out is required"},
		{[]string{"variants", "render", "--out", "x", "--variants", "y", "--on-conflict", "ours"}, 2, "", `--on-conflict is "ours": it takes error or upstream`},
		{[]string{"variants", "render", "--bogus"}, 2, "", "kptkit variants render: unknown flag --bogus"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"kptkit"}, c.args...), strings.NewReader(""), &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String(), c.out) || !strings.Contains(stderr.String(), c.err) {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", c.args, code, stdout.String(), stderr.String())
		}
	}
}

// TestVariantsSetsNeedCluster: sets without --cluster would want no
// variants and prune their packages; the command refuses, naming them.
func TestVariantsSetsNeedCluster(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/set.yaml": pvs("apps", "") + "---\n" + pvs("tools", "")})
	code, stdout, stderr := kptkit(t, dir)
	want := "kptkit variants render: PackageVariantSets apps and tools need --cluster: a set expands over the management cluster's " +
		"Repositories and objects, and without them it wants no variants (and its packages would be removed); " +
		"give --cluster a file or folder of those objects (an empty one when the sets need none)\n" +
		"Run 'kptkit variants render --help' for usage.\n"
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	if d := cmp.Diff(want, stderr); d != "" {
		t.Errorf("stderr (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "variants.status.yaml")); err == nil {
		t.Error("a status was written")
	}
}

// TestRenderSalt: what of the runtime's set-up goes into the inputs
// digest: nothing without rendering or without mappings; else the
// prefixes in order and the exec mappings sorted by image.
func TestRenderSalt(t *testing.T) {
	t.Parallel()
	execFor := map[string]string{"z.io/fn:v1": "/bin/z", "a.io/fn": "/bin/a"}
	for _, c := range []struct {
		on       bool
		prefixes []string
		execFor  map[string]string
		want     string
	}{
		{false, []string{"ghcr.io/x"}, execFor, ""},
		{true, nil, nil, ""},
		{true, []string{"ghcr.io/x", "ghcr.io/a"}, nil, " prefixes=ghcr.io/x,ghcr.io/a"},
		{true, nil, execFor, " prefixes= a.io/fn=/bin/a z.io/fn:v1=/bin/z"},
	} {
		if got := renderSalt(c.on, c.prefixes, c.execFor); got != c.want {
			t.Errorf("renderSalt(%v, %q, %v) = %q, want %q", c.on, c.prefixes, c.execFor, got, c.want)
		}
	}
}

// TestVariantsCopiesAreNoVariants (issue 20, case 3): a copy of an owned
// package elsewhere in the output, edited and with notes, and a folder
// whose Kptfile names an owner by hand, are no variant's: never deleted,
// even with --prune-all; named as warnings; the exit status unchanged.
func TestVariantsCopiesAreNoVariants(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pvs.yaml": pv("v1", "  downstream: {repo: edge01, package: app}\n")})
	if code, _, stderr := kptkit(t, dir); code != 0 {
		t.Fatalf("first run: %s", stderr)
	}
	if err := exec.Command("cp", "-r", filepath.Join(dir, "out/edge01/app"), filepath.Join(dir, "out/edge01/app-backup")).Run(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "out/edge01/app-backup/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  mode: edited\n")
	writeFile(t, dir, "out/edge01/app-backup/NOTES.md", "why I kept this\n")
	writeFile(t, dir, "out/lab/forged/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: forged\n  annotations:\n    kptkit.dev/owner: default/v1\n")
	before := snapshot(t, filepath.Join(dir, "out"), "edge01/app")
	for _, flags := range [][]string{nil, {"--prune-all"}} {
		code, stdout, stderr := kptkit(t, dir, flags...)
		if code != 0 || strings.Contains(stdout, "deleted edge01") || strings.Contains(stdout, "deleted lab") {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", flags, code, stdout, stderr)
		}
		for _, w := range []string{
			"warning: edge01/app-backup: its Kptfile names kptkit.dev/owner default/v1, which wrote it to edge01/app: a copy is no variant's, left alone",
			"warning: lab/forged: its Kptfile names kptkit.dev/owner default/v1 but not where that variant wrote it (kptkit.dev/downstream): no variant's, left alone",
		} {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", flags, w, stderr)
			}
		}
		after := snapshot(t, filepath.Join(dir, "out"), "edge01/app")
		delete(after, "variants.status.yaml")
		delete(before, "variants.status.yaml")
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("%v: the copies changed (-before +after):\n%s", flags, diff)
		}
	}
	// The variant gone, its package goes; the copies stay.
	writeFile(t, dir, "variants/pvs.yaml", pv("other", "  downstream: {repo: edge02, package: app}\n"))
	if code, stdout, _ := kptkit(t, dir, "--prune-all"); code != 0 || !strings.Contains(stdout, "deleted edge01/app (default/v1 no longer wants it)") {
		t.Errorf("prune the original: exit %d\n%s", code, stdout)
	}
	if diff := cmp.Diff([]string{"edge01/app-backup", "edge02/app", "lab/forged"}, packages(t, dir)); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
}

// TestVariantsUpdateKeepsWhatKptkitDidNotWrite (issue 20, case 4): in an
// owned package, an update replaces only the files kptkit writes: a git
// repository made in it, an empty folder stay; a file it rewrites keeps
// its mode.
func TestVariantsUpdateKeepsWhatKptkitDidNotWrite(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pvs.yaml": pv("v1", "  downstream: {repo: edge01, package: app}\n"),
		"upstream/app/deploy.sh": "echo v1\n"})
	if code, _, stderr := kptkit(t, dir); code != 0 {
		t.Fatalf("first run: %s", stderr)
	}
	pkg := filepath.Join(dir, "out/edge01/app")
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", pkg}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return string(b)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "as rendered")
	if err := os.Chmod(filepath.Join(pkg, "deploy.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(pkg, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitBefore := snapshot(t, filepath.Join(pkg, ".git"), "")
	writeFile(t, dir, "upstream/app/deploy.sh", "echo v2\n")
	if code, stdout, stderr := kptkit(t, dir); code != 0 || !strings.Contains(stdout, "updated edge01/app") {
		t.Fatalf("update: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if diff := cmp.Diff(gitBefore, snapshot(t, filepath.Join(pkg, ".git"), "")); diff != "" {
		t.Errorf("the package's .git changed (-before +after):\n%s", diff)
	}
	if got := git("log", "--format=%s"); got != "as rendered\n" {
		t.Errorf("git log: %q", got)
	}
	info, err := os.Stat(filepath.Join(pkg, "deploy.sh"))
	if b, _ := os.ReadFile(filepath.Join(pkg, "deploy.sh")); err != nil || info.Mode().Perm() != 0o755 || string(b) != "echo v2\n" {
		t.Errorf("deploy.sh: %v %v %q", info.Mode(), err, b)
	}
	if info, err := os.Stat(filepath.Join(pkg, "empty")); err != nil || !info.IsDir() {
		t.Errorf("the empty folder went: %v", err)
	}
}

// TestVariantsCheckAndDryRunWriteNothing (issue 20, case 8): --check and
// --dry-run make no --out, write no status, and leave what a stopped run
// left as it is (naming it); the next run that writes undoes it.
func TestVariantsCheckAndDryRunWriteNothing(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pvs.yaml": pv("a", "  downstream: {repo: edge01, package: app}\n")})
	if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"--check", "--dry-run"} {
		if code, _, stderr := kptkit(t, dir, mode); code != map[string]int{"--check": 1, "--dry-run": 0}[mode] {
			t.Errorf("%s: exit %d\n%s", mode, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s made --out: %v", mode, err)
		}
	}
	if code, _, stderr := kptkit(t, dir); code != 0 {
		t.Fatalf("render: %s", stderr)
	}
	// A stopped update's leftovers: cm.yaml moved out, the new one staged.
	out := filepath.Join(dir, "out")
	rendered := snapshot(t, out, "")
	writeFile(t, dir, "out/.kptkit/tx-1/n0", "new\n")
	writeFile(t, dir, "out/.kptkit/tx-1/journal", "kptkit journal 1\ns o0 \"edge01/app/cm.yaml\"\np n0 \"edge01/app/cm.yaml\"\n")
	if err := os.Rename(filepath.Join(out, "edge01/app/cm.yaml"), filepath.Join(out, ".kptkit/tx-1/o0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, "variants.status.yaml")); err != nil {
		t.Fatal(err)
	}
	stopped := snapshot(t, out, "")
	for _, mode := range []string{"--check", "--dry-run"} {
		_, _, stderr := kptkit(t, dir, mode)
		if !strings.Contains(stderr, "holds a write a stopped run left unfinished (.kptkit/tx-1): the next run that writes undoes it") {
			t.Errorf("%s: stderr:\n%s", mode, stderr)
		}
		if diff := cmp.Diff(stopped, snapshot(t, out, "")); diff != "" {
			t.Errorf("%s changed the output (-before +after):\n%s", mode, diff)
		}
	}
	if code, stdout, stderr := kptkit(t, dir); code != 0 || !strings.Contains(stdout, "nothing changed") {
		t.Errorf("the run after: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if diff := cmp.Diff(rendered, snapshot(t, out, "")); diff != "" {
		t.Errorf("recovered (-rendered +got):\n%s", diff)
	}
}

// fleetExample copies examples/fleet into a new folder with its catalog
// made, and returns a run of variants render over it.
func fleetExample(t *testing.T) (string, func(args ...string) (int, string, string)) {
	t.Helper()
	dir := t.TempDir()
	if b, err := exec.Command("cp", "-r", "../../examples/fleet/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, b)
	}
	if b, err := exec.Command(filepath.Join(dir, "make-catalog.sh"), filepath.Join(dir, "catalog.git")).CombinedOutput(); err != nil {
		t.Fatalf("make-catalog.sh: %v\n%s", err, b)
	}
	return dir, func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"kptkit", "variants", "render", "--variants", filepath.Join(dir, "variants"), "--cluster", filepath.Join(dir, "cluster"),
			"--out", filepath.Join(dir, "deployments"), "--repo-map", "https://git.example.com/nephio/catalog.git=" + filepath.Join(dir, "catalog.git")}, args...),
			strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
}

// TestVariantsMoveIntoAndOutOf (issue 20, case 9): in examples/fleet, the
// set's packageExpr 'web' becomes 'web/sub' — each package moves into a
// subfolder of its old place — and back: every package is where the set
// now wants it, as a clean run writes it, and nothing else is left.
func TestVariantsMoveIntoAndOutOf(t *testing.T) {
	t.Parallel()
	clean := map[string]map[string]string{}
	for _, expr := range []string{"web", "web/sub"} {
		dir, render := fleetExample(t)
		setExpr(t, dir, expr)
		if code, _, stderr := render(); code != 0 {
			t.Fatalf("clean %s: %s", expr, stderr)
		}
		clean[expr] = snapshot(t, filepath.Join(dir, "deployments"), "")
	}
	dir, render := fleetExample(t)
	if code, _, stderr := render(); code != 0 {
		t.Fatalf("first: %s", stderr)
	}
	for _, expr := range []string{"web/sub", "web"} {
		setExpr(t, dir, expr)
		code, stdout, stderr := render()
		if code != 0 || !strings.Contains(stdout, "4 created, 0 updated, 0 unchanged, 4 deleted, 0 released, 0 failed") {
			t.Errorf("to %s: exit %d\n%s\n%s", expr, code, stdout, stderr)
		}
		if diff := cmp.Diff(clean[expr], snapshot(t, filepath.Join(dir, "deployments"), "")); diff != "" {
			t.Errorf("moved to %s (-clean +got):\n%s", expr, diff)
		}
	}
}

func setExpr(t *testing.T, dir, expr string) {
	t.Helper()
	file := filepath.Join(dir, "variants", "app.yaml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`packageExpr: .*`).ReplaceAllString(string(b), `packageExpr: "'`+expr+`'"`)
	if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVariantsExecStepSkipped (issue 20, case 13): an exec: step of a
// fleet's package is not run: the variant is written, with a warning.
func TestVariantsExecStepSkipped(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"variants/pvs.yaml": pv("a", "  downstream: {repo: edge01, package: app}\n"),
		"upstream/app/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n  - exec: ./touch-everything\n"})
	code, stdout, stderr := kptkit(t, dir, "--render=true")
	if code != 0 || !strings.Contains(stdout, "default/a: created edge01/app") ||
		!strings.Contains(stderr, "  warning: ./touch-everything: exec: entries are not run by variants render (its packages come from elsewhere): skipped\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestStatusEncoding: the status stream, written by kptpkg.Encode, has
// the bytes kio.ByteWriter gave it before: messages long, quoted, on
// several lines or not ASCII, empty lists and maps.
func TestStatusEncoding(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a long message with spaces ", 12)
	var status []*yaml.RNode
	for _, s := range []string{
		"apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: web\nstatus:\n  conditions: []\n",
		"apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: a\n  namespace: ns\nstatus:\n  conditions:\n  - type: Ready\n    status: \"False\"\n    reason: RenderFailed\n",
	} {
		n, err := yaml.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		status = append(status, n)
	}
	for _, msg := range []string{long, "it's \"quoted\": a: b", "two\nlines\n", "ünïcödé – ✓", "", "- looks like a list", "123", "true"} {
		c, err := status[1].Pipe(yaml.Lookup("status", "conditions", "0"))
		if err != nil || c == nil {
			t.Fatal(err)
		}
		if err := c.PipeE(yaml.SetField("message", yaml.NewStringRNode(msg))); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := (kio.ByteWriter{Writer: &want}).Write(status); err != nil {
			t.Fatal(err)
		}
		got, err := kptpkg.Encode(status)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.String(), string(got)); d != "" {
			t.Errorf("message %q (-ByteWriter +Encode):\n%s", msg, d)
		}
	}
}

// The soft memory limit stays 768 MiB for a whole run that holds up to
// 128 MiB once planned, and leaves 896 MiB above a larger one, or above a
// shard's, up to 1 GiB.
func TestMemoryLimitFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		live  uint64
		shard bool
		want  int64
	}{
		{0, false, 768 << 20}, {90 << 20, false, 768 << 20}, {128 << 20, false, 768 << 20}, {129 << 20, false, 1 << 30},
		{100 << 20, false, 768 << 20}, {4 << 30, false, 1 << 30},
		{0, true, 896 << 20}, {100 << 20, true, 996 << 20}, {128 << 20, true, 1 << 30}, {4 << 30, true, 1 << 30},
	} {
		if got := memoryLimitFor(tc.live, tc.shard); got != tc.want {
			t.Errorf("memoryLimitFor(%d MiB, shard %v) = %d MiB, want %d MiB", tc.live>>20, tc.shard, got>>20, tc.want>>20)
		}
	}
}
