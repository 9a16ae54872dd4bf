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
	if err := os.RemoveAll(filepath.Join(e.repo, pkg)); err != nil {
		e.t.Fatal(err)
	}
	write(e.t, filepath.Join(e.repo, pkg), files)
	e.run(e.repo, "git", "add", "-A")
	e.run(e.repo, "git", "commit", "-q", "--allow-empty", "-m", tag)
	e.run(e.repo, "git", "tag", tag)
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
func edit(t *testing.T, files kptpkg.Files, edits map[string]func(string) string) kptpkg.Files {
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
func sub(t *testing.T, old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("%q is not in:\n%s", old, s)
		}
		return strings.Replace(s, old, new, 1)
	}
}

func TestKptEquivalence(t *testing.T) {
	e := newKptEnv(t)
	v1 := upstreamV1()
	v2 := upstreamV2(t, v1)
	c1 := e.publish("pkg", v1, "pkg/v1")
	c2 := e.publish("pkg", v2, "pkg/v2")
	o1, o2 := e.origin("pkg", "pkg/v1", c1), e.origin("pkg", "pkg/v2", c2)

	ds := e.downstream("deploy")
	got := e.get(ds, "app", "pkg", "pkg/v1")
	cloned, err := pkgupdate.Clone(v1, "app", o1)
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "kpt pkg get and Clone", got, cloned)

	edited := downstreamEdits(t, got)
	replace(t, filepath.Join(ds, "app"), edited)
	kptUpdated := e.update(ds, "app", "pkg/v2")
	updated, conflicts, err := pkgupdate.Update(v1, v2, edited, o2, pkgupdate.KeepLocal)
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) > 0 {
		t.Errorf("conflicts: %v", conflicts)
	}
	sameFiles(t, "kpt pkg update and Update", kptUpdated, updated)
}

const kptfileV1 = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: the app
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.1
      configMap:
        app: app
`

func upstreamV1() kptpkg.Files {
	return kptpkg.Files{
		"Kptfile": []byte(kptfileV1),
		"deploy.yaml": []byte(`# the app's deployment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  labels:
    app: app
spec:
  replicas: 1 # one for now
  template:
    spec:
      containers:
      - name: app
        image: "nginx:1.0"
        ports:
        - containerPort: 80
`),
		"cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: ns
data:
  a: '1'
  b: yes
---
apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  ports:
    - port: 80
`),
		"old.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: old
data:
  k: v
`),
		"README.md": []byte("# app\n\nhello\n"),
		"docs/guide.txt": []byte("guide v1\n"),
		"sub/Kptfile": []byte(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: sub
info:
  description: a subpackage
`),
		"sub/x.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  k: v
`),
	}
}

// upstreamV2 changes every kind of thing upstream.
func upstreamV2(t *testing.T, v1 kptpkg.Files) kptpkg.Files {
	v2 := edit(t, v1, map[string]func(string) string{
		"deploy.yaml": func(s string) string {
			s = sub(t, "replicas: 1 # one for now", "replicas: 2 # two now")(s)
			return sub(t, `"nginx:1.0"`, `"nginx:2.0"`)(s)
		},
		"cm.yaml": func(s string) string {
			return sub(t, "a: '1'", "a: '2'")(s) + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  t: x\n"
		},
		"old.yaml":       nil,
		"README.md":      sub(t, "hello", "hello v2"),
		"docs/guide.txt": nil,
		"NOTES.txt":      func(string) string { return "notes\n" },
		"sub/x.yaml":     sub(t, "k: v", "k: v2"),
		"Kptfile":        sub(t, "description: the app", "description: the app, v2"),
		"new/Kptfile":    func(string) string { return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: new\n" },
		"new/n.yaml":     func(string) string { return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\n" },
	})
	return v2
}

// downstreamEdits are a downstream's own changes: a field upstream leaves
// alone, a label, a new resource, a deleted resource, a changed file.
func downstreamEdits(t *testing.T, files kptpkg.Files) kptpkg.Files {
	return edit(t, files, map[string]func(string) string{
		"deploy.yaml": sub(t, "    app: app\n", "    app: app\n    team: blue\n"),
		"cm.yaml":     sub(t, "b: yes", `b: "no"`),
		"extra.yaml": func(string) string {
			return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  z: \"1\"\n"
		},
		"sub/x.yaml": nil,
	})
}
