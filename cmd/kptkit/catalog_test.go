package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
)

func kptfileOf(name string) string {
	return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n"
}

// catalogRepo makes a git catalog below catalog/: db at v1 and v2 (main
// back at v1's files), db/sub a subpackage with its own tag, web at
// v1.2.0 with a dependency on db v1, a tag that names no version.
func catalogRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	r.Commit("db v1", map[string]string{
		"catalog/db/Kptfile": kptfileOf("db"), "catalog/db/sub/Kptfile": kptfileOf("sub"),
		"catalog/web/Kptfile": kptfileOf("web"),
		"catalog/web/pv.yaml": "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: web-db\nspec:\n  upstream: {repo: platform, package: db, revision: v1}\n  downstream: {repo: edge, package: web-db}\n",
		"README.md":           "# catalog\n",
	}, "catalog/db/v1", "catalog/db/sub/v1", "catalog/web/v1.2.0", "release-notes")
	r.Commit("db v2", map[string]string{"catalog/db/crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: tables.db.example.com\nspec:\n  group: db.example.com\n  names: {kind: Table, plural: tables}\n  versions: [{name: v1, served: true}]\n"}, "catalog/db/v2")
	r.Commit("back to db v1's files", map[string]string{"catalog/db/crd.yaml": "", "README.md": "# catalog, edited\n"})
	return r
}

func runKptkit(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"kptkit"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestCatalogIndexGit(t *testing.T) {
	t.Parallel()
	r := catalogRepo(t)
	for _, path := range []string{r.Dir, "file://" + r.Bare()} {
		out, stderr, code := runKptkit(t, "catalog", "index", "--repo", "platform="+path+"//catalog")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, stderr)
		}
		want := `apiVersion: fn.kptkit.dev/v1alpha1
kind: CatalogPackage
metadata:
  name: db
  annotations:
    kptkit.dev/in-cluster: "true"
spec:
  repo: platform
  latestVersion: v1
  versions:
  - version: v2
    commit: COMMIT2
    provides:
      apis:
      - group: db.example.com
        version: v1
        kind: Table
        resource: tables
  - version: v1
    commit: COMMIT1
---
apiVersion: fn.kptkit.dev/v1alpha1
kind: CatalogPackage
metadata:
  name: db/sub
  annotations:
    kptkit.dev/in-cluster: "true"
spec:
  repo: platform
  latestVersion: v1
  versions:
  - version: v1
    commit: COMMIT1
---
apiVersion: fn.kptkit.dev/v1alpha1
kind: CatalogPackage
metadata:
  name: web
  annotations:
    kptkit.dev/in-cluster: "true"
spec:
  repo: platform
  latestVersion: v1.2.0
  versions:
  - version: v1.2.0
    commit: COMMIT1
    dependencies:
    - package: db
      repo: platform
      version: =1.0.0
      reason: PackageVariant/web-db in pv.yaml
    requires:
      apis:
      - group: config.porch.kpt.dev
        kind: PackageVariant
        reason: PackageVariant/web-db in pv.yaml
`
		want = strings.NewReplacer("COMMIT1", r.Git("rev-parse", "catalog/db/v1"), "COMMIT2", r.Git("rev-parse", "catalog/db/v2")).Replace(want)
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("%s: index (-want +got):\n%s", path, diff)
		}
	}
}

func TestCatalogIndexPrevious(t *testing.T) {
	t.Parallel()
	r := catalogRepo(t)
	dir := t.TempDir()
	first := filepath.Join(dir, "first.yaml")
	if _, stderr, code := runKptkit(t, "catalog", "index", "--repo", "platform="+r.Dir+"//catalog", "-o", first); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	// A marker in the previous index shows which versions are taken from it.
	marked := strings.Replace(string(b), "  - version: v1\n    commit:", "  - version: v1\n    provides: {capabilities: [from-previous]}\n    commit:", 1)
	if err := os.WriteFile(first, []byte(marked), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runKptkit(t, "catalog", "index", "--repo", "platform="+r.Dir+"//catalog", "--previous", first)
	if code != 0 || !strings.Contains(out, "from-previous") {
		t.Errorf("exit %d, stderr %s; the previous index's version was not kept:\n%s", code, stderr, out)
	}
	// db v1, and nothing else, is the previous index's (marker included).
	v1 := "  - version: v1\n    commit: " + r.Git("rev-parse", "catalog/db/v1") + "\n"
	want := strings.Replace(string(b), v1, v1+"    provides:\n      capabilities:\n      - from-previous\n", 1)
	if want == string(b) {
		t.Fatalf("db v1 is not in the first index:\n%s", b)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
}

func TestCatalogIndexFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for p, content := range map[string]string{"app/Kptfile": kptfileOf("app"), "bad/Kptfile": kptfileOf("bad"), "bad/x.yaml": "a: [\n"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, code := runKptkit(t, "catalog", "index", "--repo", "local="+dir)
	if code != 0 || !strings.Contains(out, "name: app\n") || strings.Contains(out, "name: bad") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(stderr, "warning: repository local: package bad v1 is skipped: bad/x.yaml: MalformedYAMLError") {
		t.Errorf("stderr:\n%s", stderr)
	}
	wantOut := `apiVersion: fn.kptkit.dev/v1alpha1
kind: CatalogPackage
metadata:
  name: app
  annotations:
    kptkit.dev/in-cluster: "true"
spec:
  repo: local
  latestVersion: v1
  versions:
  - version: v1
    digest: sha256:69d8cbdeca02a3f5a81d62b2ac4f1c830f57f6daddf700f5c5927ec222b915c1
`
	if diff := cmp.Diff(wantOut, out); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
	wantErr := "warning: repository local: package bad v1 is skipped: bad/x.yaml: MalformedYAMLError: yaml: line 1: did not find expected node content\n"
	if diff := cmp.Diff(wantErr, stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestCatalogInstalled(t *testing.T) {
	t.Parallel()
	r := catalogRepo(t)
	v2 := r.Git("rev-parse", "catalog/db/v2")
	head := r.Git("rev-parse", "HEAD")
	deploy := t.TempDir()
	lock := func(name, ref, commit string) string {
		return kptfileOf(name) + "upstream:\n  type: git\n  git: {repo: " + r.Dir + ", directory: /catalog/db, ref: " + ref + "}\n" +
			"upstreamLock:\n  type: git\n  git: {repo: " + r.Dir + ", directory: /catalog/db, ref: " + ref + ", commit: " + commit + "}\n"
	}
	for p, content := range map[string]string{
		"Kptfile":           kptfileOf("edge01"),
		"db-tag/Kptfile":    lock("db-tag", "catalog/db/v1", r.Git("rev-parse", "catalog/db/v1")),
		"db-commit/Kptfile": lock("db-commit", v2, v2),
		"db-main/Kptfile":   lock("db-main", "main", head),
	} {
		if err := os.MkdirAll(filepath.Join(deploy, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(deploy, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, code := runKptkit(t, "catalog", "installed", "--repo", "edge01="+deploy, "--cluster", "edge01=edge-cluster-01", "--catalog", "platform="+r.Dir+"//catalog")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"name: edge-cluster-01.db-commit\n  annotations:\n    kptkit.dev/in-cluster: \"true\"\nspec:\n  cluster: edge-cluster-01\n  package: db\n  version: v2\n",
		"name: edge-cluster-01.db-main\n  annotations:\n    kptkit.dev/in-cluster: \"true\"\nspec:\n  cluster: edge-cluster-01\n  package: db\n  version: v2\n",
		"name: edge-cluster-01.db-tag\n  annotations:\n    kptkit.dev/in-cluster: \"true\"\nspec:\n  cluster: edge-cluster-01\n  package: db\n  version: v1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, `warning: edge01: db-main/Kptfile: ref "main" is a branch: taken as the latest version, v2`) {
		t.Errorf("stderr:\n%s", stderr)
	}
	installed := func(name, version string) string {
		return "apiVersion: fn.kptkit.dev/v1alpha1\nkind: InstalledPackage\nmetadata:\n  name: edge-cluster-01." + name +
			"\n  annotations:\n    kptkit.dev/in-cluster: \"true\"\nspec:\n  cluster: edge-cluster-01\n  package: db\n  version: " + version + "\n"
	}
	wantOut := installed("db-commit", "v2") + "---\n" + installed("db-main", "v2") + "---\n" + installed("db-tag", "v1")
	if diff := cmp.Diff(wantOut, out); diff != "" {
		t.Errorf("InstalledPackages (-want +got):\n%s", diff)
	}
	wantErr := "warning: edge01: db-main/Kptfile: ref \"main\" is a branch: taken as the latest version, v2 (lock a version tag to be exact)\n"
	if diff := cmp.Diff(wantErr, stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

// TestCatalogUsage: the mistakes of catalog's own flags (help, unknown
// flags and subcommands are TestOneVoice's).
func TestCatalogUsage(t *testing.T) {
	t.Parallel()
	usage := func(sub, msg string) string {
		return "kptkit catalog " + sub + ": " + msg + "\nRun 'kptkit catalog " + sub + " --help' for usage.\n"
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"catalog", "index"}, 2, usage("index", "--repo is required")},
		{[]string{"catalog", "index", "--repo", "just-a-path"}, 2, usage("index", `--repo "just-a-path": want NAME=PATH[//DIR]`)},
		{[]string{"catalog", "index", "--repo", "x=/nonexistent"}, 1, "kptkit catalog index: --repo x: open /nonexistent: no such file or directory\n"},
		{[]string{"catalog", "index", "--repo", "x=y", "extra"}, 2, usage("index", `unexpected argument "extra": it takes none`)},
		{[]string{"catalog", "installed", "--repo", "a", "--cluster", "bad"}, 2, usage("installed", `--cluster: invalid value "bad": want NAME=CLUSTER`)},
	} {
		out, stderr, code := runKptkit(t, tc.args...)
		if code != tc.code || out != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q", tc.args, code, tc.code, out)
		}
		if d := cmp.Diff(tc.stderr, stderr); d != "" {
			t.Errorf("%v: stderr (-want +got):\n%s", tc.args, d)
		}
	}
}

func TestParseRepo(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]repoSpec{
		"a=/srv/catalog":                          {name: "a", path: "/srv/catalog"},
		"a=/srv/catalog//infra/capi":              {name: "a", path: "/srv/catalog", dir: "infra/capi"},
		"a=https://git.example.com/c.git//infra/": {name: "a", path: "https://git.example.com/c.git", dir: "infra"},
		"a=file:///srv/c.git":                     {name: "a", path: "file:///srv/c.git"},
	} {
		got, err := parseRepo(in)
		if err != nil || got != want {
			t.Errorf("parseRepo(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if _, err := parseRepo("a=/srv//../x"); err == nil {
		t.Error("a directory leaving the repository was accepted")
	}
}
