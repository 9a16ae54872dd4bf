package pkgupdate_test

// The equivalence tests: the real kpt (`kpt pkg get`, `kpt pkg update
// --strategy resource-merge`) and git against a git repository the test
// makes, compared file by file, byte by byte, with Clone and Update.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgupdate"
)

// gitEnv makes git and kpt deterministic and independent of the machine's
// configuration.
func gitEnv(home string) []string {
	env := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"),
		"GIT_AUTHOR_NAME=kptkit", "GIT_AUTHOR_EMAIL=kptkit@example.com", "GIT_AUTHOR_DATE=2024-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=kptkit", "GIT_COMMITTER_EMAIL=kptkit@example.com", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z",
		"KPT_DISABLE_ATTRIBUTION=1",
	}
	return env
}

// kptEnv is a scratch place to run kpt and git in.
type kptEnv struct {
	t    *testing.T
	dir  string
	env  []string
	repo string // the upstream repository
}

func newKptEnv(t *testing.T) *kptEnv {
	t.Helper()
	for _, tool := range []string{"kpt", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the equivalence tests run the real kpt and git (README: Debian package google-cloud-cli-kpt)", tool)
		}
	}
	dir := t.TempDir()
	e := &kptEnv{t: t, dir: dir, env: gitEnv(dir), repo: filepath.Join(dir, "repo")}
	e.run(dir, "git", "init", "-q", "-b", "main", e.repo)
	return e
}

func (e *kptEnv) run(dir, name string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, e.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// publish commits files as the upstream package in folder pkg and tags the
// commit; it returns the commit.
func (e *kptEnv) publish(pkg string, files kptpkg.Files, tag string) string {
	e.t.Helper()
	replace(e.t, filepath.Join(e.repo, pkg), files)
	e.commit(e.repo, tag)
	e.run(e.repo, "git", "tag", tag)
	return e.head()
}

// head is the upstream repository's HEAD commit.
func (e *kptEnv) head() string {
	e.t.Helper()
	return strings.TrimSpace(e.run(e.repo, "git", "rev-parse", "HEAD"))
}

// origin is where kpt records a package from folder pkg of the repository
// at ref, as `kpt pkg get <repo>.git/<pkg>@<ref>` records it.
func (e *kptEnv) origin(pkg, ref, commit string) pkgupdate.Origin {
	return pkgupdate.Origin{Repo: e.repo, Directory: "/" + pkg, Ref: ref, Commit: commit}
}

// downstream makes a git repository for downstream packages (kpt updates
// only committed packages) and returns it.
func (e *kptEnv) downstream(name string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, name)
	e.run(e.dir, "git", "init", "-q", "-b", "main", dir)
	return dir
}

// commit commits everything in the repository at dir.
func (e *kptEnv) commit(dir, msg string) {
	e.t.Helper()
	e.run(dir, "git", "add", "-A")
	e.run(dir, "git", "commit", "-q", "--allow-empty", "-m", msg)
}

// get runs `kpt pkg get` into dir/name and returns the package's files.
func (e *kptEnv) get(dir, name, pkg, ref string) kptpkg.Files {
	e.t.Helper()
	e.run(dir, "kpt", "pkg", "get", e.repo+".git/"+pkg+"@"+ref, name)
	return read(e.t, filepath.Join(dir, name))
}

// update runs `kpt pkg update --strategy resource-merge` on dir/name and
// returns the package's files.
func (e *kptEnv) update(dir, name, ref string) kptpkg.Files {
	e.t.Helper()
	e.commit(dir, "before update")
	e.run(dir, "kpt", "pkg", "update", name+"@"+ref, "--strategy", "resource-merge")
	return read(e.t, filepath.Join(dir, name))
}

// replace makes the folder dir hold exactly files.
func replace(t *testing.T, dir string, files kptpkg.Files) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	write(t, dir, files)
}

func write(t *testing.T, dir string, files kptpkg.Files) {
	t.Helper()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func read(t *testing.T, dir string) kptpkg.Files {
	t.Helper()
	files, err := kptpkg.Read(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// texts makes files cheap to compare and readable in a diff.
func texts(files kptpkg.Files) map[string]string {
	out := make(map[string]string, len(files))
	for p, b := range files {
		out[p] = string(b)
	}
	return out
}

func sameFiles(t *testing.T, what string, want, got kptpkg.Files) {
	t.Helper()
	if diff := cmp.Diff(texts(want), texts(got)); diff != "" {
		t.Errorf("%s (-kpt +kptkit):\n%s", what, diff)
	}
}

// edit returns files with the edits applied: path → func(old) new; a nil
// func deletes the file.
func edit(t testing.TB, files kptpkg.Files, edits map[string]func(string) string) kptpkg.Files {
	t.Helper()
	out := files.Clone()
	for p, f := range edits {
		if f == nil {
			delete(out, p)
			continue
		}
		out[p] = []byte(f(string(files[p])))
	}
	return out
}

// sub returns a function replacing old by new, which must be there.
func sub(t testing.TB, old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("%q is not in:\n%s", old, s)
		}
		return strings.Replace(s, old, new, 1)
	}
}

// forTest returns the place for one subtest: its own folder and home (kpt
// keeps a cache of repositories there), the same upstream repository.
func (e *kptEnv) forTest(t *testing.T) *kptEnv {
	dir := t.TempDir()
	return &kptEnv{t: t, dir: dir, env: gitEnv(dir), repo: e.repo}
}
