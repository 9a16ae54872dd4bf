package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
)

// hostileUpstream is a git repository whose tag app/v1 holds the package
// app and the planted files (made with git's plumbing, as git add would
// refuse them), and whose tag other/v1 holds a clean package.
func hostileUpstream(t *testing.T, planted map[string]string) string {
	t.Helper()
	r := gittest.New(t)
	files := map[string]string{"other/Kptfile": kptfileOf("other")}
	for p, c := range appFiles {
		files["app/"+strings.TrimPrefix(p, "upstream/app/")] = c
	}
	for p, c := range planted {
		files[p] = c
	}
	r.Plant("hostile", files, "app/v1", "other/v1")
	return r.Bare()
}

// gitVariant is a PackageVariant of revision 1 of a package of the git
// repository catalog-git.
func gitVariant(name, pkg, repo string) string {
	return "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: " + name +
		"\nspec:\n  upstream: {repo: catalog-git, package: " + pkg + ", revision: 1}\n  downstream: {repo: " + repo + ", package: " + pkg + "}\n"
}

// gitRepository is the Repository catalog-git, read from url.
func gitRepository(url string) string {
	return "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: catalog-git\nspec:\n  type: git\n  git: {repo: '" + url + "'}\n"
}

// TestVariantsHostileGitUpstream: an upstream revision holding a path git
// refuses to check out fails its variant, naming repository, commit and
// path; nothing of it is written, and the other variants render.
func TestVariantsHostileGitUpstream(t *testing.T) {
	t.Parallel()
	for planted, want := range map[string]string{
		"app/sub/.git/config":                `tree entry "app/sub/.git": invalid path: ".git" is git's own folder`,
		"app/.GIT/x":                         `tree entry "app/.GIT": invalid path: ".GIT" is git's own folder`,
		"app/sub/git~1/x":                    `tree entry "app/sub/git~1": invalid path: "git~1" is .git on NTFS by its short name git~1`,
		"app/.git./x":                        `tree entry "app/.git.": invalid path: ".git." is .git on NTFS, which drops trailing dots and spaces`,
		"app/.git::$INDEX_ALLOCATION/config": `tree entry "app/.git::$INDEX_ALLOCATION": invalid path: ".git::$INDEX_ALLOCATION" is .git on NTFS (a stream of it)`,
		"app/.g\u200cit/x":                   `tree entry "app/.g\u200cit": invalid path: ".g\u200cit" is .git on HFS+, which ignores U+200C`,
	} {
		t.Run(planted, func(t *testing.T) {
			t.Parallel()
			repo := hostileUpstream(t, map[string]string{planted: "[core]\n"})
			dir := workspace(t, map[string]string{
				"variants/pvs.yaml": gitVariant("hostile", "app", "edge01") + "---\n" + gitVariant("clean", "other", "edge02") + "---\n" +
					pv("folder", "  downstream: {repo: edge03, package: app}\n"),
				"cluster/repos.yaml": gitRepository(repo),
			})
			before := snapshot(t, dir, "out")
			code, stdout, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster"))
			commit := strings.TrimSpace(gitOut(t, repo, "rev-parse", "app/v1"))
			wantErr := `reading "app" at commit ` + commit[:12] + ` of ` + repo + `: ` + want
			if code != 1 || !strings.Contains(stderr, "failed: default/hostile") || !strings.Contains(stderr, wantErr) ||
				!strings.Contains(stdout, "2 created, 0 updated, 0 unchanged, 0 deleted, 0 released, 1 failed") {
				t.Errorf("exit %d, want 1 and the error %s\nstdout:\n%s\nstderr:\n%s", code, wantErr, stdout, stderr)
			}
			if diff := cmp.Diff([]string{"edge02/other", "edge03/app"}, packages(t, dir)); diff != "" {
				t.Errorf("packages (-want +got):\n%s", diff)
			}
			if _, err := os.Lstat(filepath.Join(dir, "out", "edge01")); !os.IsNotExist(err) {
				t.Errorf("out/edge01 was made: %v", err)
			}
			if diff := cmp.Diff(before, snapshot(t, dir, "out")); diff != "" {
				t.Errorf("files outside the output changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestVariantsFsmonitorTrap: an upstream plants app/sub/.git with a
// core.fsmonitor command, which git runs on `git status` in app/sub. After
// the run, git status is run wherever the package may have landed, and
// the command has not run.
func TestVariantsFsmonitorTrap(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	trap := filepath.Join(t.TempDir(), "pwned")
	repo := hostileUpstream(t, map[string]string{
		"app/sub/.git/HEAD":          "ref: refs/heads/main\n",
		"app/sub/.git/config":        "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch " + trap + "\n",
		"app/sub/.git/objects/.keep": "",
		"app/sub/.git/refs/.keep":    "",
		"app/sub/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n",
	})
	dir := workspace(t, map[string]string{
		"variants/pvs.yaml":  gitVariant("hostile", "app", "edge01"),
		"cluster/repos.yaml": gitRepository(repo),
	})
	code, _, stderr := kptkit(t, dir, "--cluster", filepath.Join(dir, "cluster"))
	if code != 1 || !strings.Contains(stderr, `tree entry "app/sub/.git": invalid path`) {
		t.Errorf("exit %d, want 1 and the invalid path\nstderr:\n%s", code, stderr)
	}
	for _, sub := range []string{"out/edge01/app/sub", "out/edge01/app", "out"} {
		cmd := exec.Command("git", "status", "--short")
		cmd.Dir = filepath.Join(dir, sub)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CEILING_DIRECTORIES="+dir)
		_ = cmd.Run() // not a repository: git fails, as it should
	}
	if _, err := os.Stat(trap); !os.IsNotExist(err) {
		t.Errorf("the planted core.fsmonitor ran (%s exists: %v)", trap, err)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// TestRenderRefusesGitAndIgnoredWrites: a function (exec) whose item
// names .git/config, a file .krmignore leaves out, or a file that is not a
// resource fails `kptkit render`, which writes nothing; kpt 1.0.0-beta.56
// writes all three.
func TestRenderRefusesGitAndIgnoredWrites(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for target, want := range map[string]string{
		".git/config":      `function must not modify resources in git's folder: resource has path .git/config (invalid path: ".git" is git's own folder)`,
		"secret/keep.yaml": `ConfigMap/evil (secret/keep.yaml): function must not write over secret/keep.yaml: .krmignore leaves the file there out of the package's resources`,
		"notes.txt":        `ConfigMap/evil (notes.txt): function must not write over notes.txt: the file there is not a resource file`,
	} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			fn := filepath.Join(t.TempDir(), "fn.sh")
			script := "#!/bin/sh\nexec awk '{ print } /^items:/ { print \"- apiVersion: v1\\n  kind: ConfigMap\\n  metadata:\\n    name: evil\\n" +
				"    annotations:\\n      config.kubernetes.io/path: " + target + "\\n  data:\\n    fsmonitor: touch pwned\" }'\n"
			if err := os.WriteFile(fn, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			dir := writePkg(t, map[string][]byte{
				"Kptfile":          []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n  - exec: " + fn + "\n"),
				"cm.yaml":          []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"),
				".krmignore":       []byte("secret/\n"),
				"secret/keep.yaml": []byte("hand: written\n"),
				"notes.txt":        []byte("my notes\n"),
			})
			gitOut(t, dir, "init", "-q")
			before := snapshot(t, dir, "")
			code, _, stderr := kptkitRun("render", "--allow-exec", dir)
			if code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, want 1 and %s\nstderr:\n%s", code, want, stderr)
			}
			if diff := cmp.Diff(before, snapshot(t, dir, "")); diff != "" {
				t.Errorf("the package changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestRenderInASubmodule: a package that is a submodule's (or a
// worktree's) checkout holds a .git file, its link to its repository: it
// is no file of the package, and renders, left as it was.
func TestRenderInASubmodule(t *testing.T) {
	t.Parallel()
	dir := writePkg(t, map[string][]byte{"Kptfile": []byte(kptfileOf("app")), "cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")})
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: ../.git/modules/app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir, "")
	if code, _, stderr := kptkitRun("render", dir); code != 0 {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(before, snapshot(t, dir, "")); diff != "" {
		t.Errorf("the package changed (-before +after):\n%s", diff)
	}
}

// TestVariantsFolderUpstreamGitNames: a folder upstream holding a name git
// refuses for .git (a Linux folder may: .GIT, git~1) fails its variant at
// the write, before anything of it is written; .git itself is never read.
func TestVariantsFolderUpstreamGitNames(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{
		"variants/pvs.yaml":          pv("a", "  downstream: {repo: edge01, package: app}\n"),
		"upstream/app/.GIT/config":   "[core]\n",
		"upstream/app/sub/git~1/x":   "x\n",
		"upstream/app/sub/.git/HEAD": "ref: refs/heads/main\n",
		"upstream/app/.github/ci.md": "# ci\n",
	})
	code, _, stderr := kptkit(t, dir)
	want := `file ".GIT/config": invalid path: ".GIT" is git's own folder`
	if code != 1 || !strings.Contains(stderr, "failed: default/a") || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 1 and %s\nstderr:\n%s", code, want, stderr)
	}
	if _, err := os.Lstat(filepath.Join(dir, "out", "edge01")); !os.IsNotExist(err) {
		t.Errorf("out/edge01 was made: %v", err)
	}
}
