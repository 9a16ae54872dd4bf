package gitrepo_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

func TestRepo(t *testing.T) {
	t.Parallel()
	w := gittest.New(t)
	v1 := w.Commit("v1", map[string]string{
		"catalog/app/Kptfile": "kind: Kptfile\n", "catalog/app/cm.yaml": "v: 1\n", "README.md": "# r\n",
	}, "catalog/app/v1")
	w.Git("tag", "-a", "-m", "annotated", "catalog/app/v1.0.1")
	v2 := w.Commit("v2", map[string]string{"catalog/app/cm.yaml": "v: 2\n", "catalog/app/sub/x.yaml": "x: 1\n"}, "catalog/app/v2")
	w.Git("branch", "drafts/catalog/app/ws1", v1)
	bare := w.Bare()

	for _, dir := range []string{w.Dir, bare} {
		r, err := gitrepo.Open("file://"+dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		for ref, want := range map[string]string{
			"catalog/app/v1": v1, "catalog/app/v1.0.1": v1, "catalog/app/v2": v2, "main": v2,
			"drafts/catalog/app/ws1": v1, v1: v1, "refs/tags/catalog/app/v2": v2,
		} {
			got, err := r.Resolve(ref)
			if err != nil || got != want {
				t.Errorf("%s: Resolve(%q) = %q, %v; want %q", dir, ref, got, err, want)
			}
		}
		if _, err := r.Resolve("catalog/app/v9"); !errors.Is(err, gitrepo.ErrNotFound) {
			t.Errorf("Resolve of a missing tag: %v", err)
		}
		files, err := r.Files(v2, "/catalog/app")
		if err != nil {
			t.Fatal(err)
		}
		want := kptpkg.Files{"Kptfile": []byte("kind: Kptfile\n"), "cm.yaml": []byte("v: 2\n"), "sub/x.yaml": []byte("x: 1\n")}
		if diff := cmp.Diff(want, files); diff != "" {
			t.Errorf("Files (-want +got):\n%s", diff)
		}
		if _, err := r.Files(v1, "catalog/nope"); !errors.Is(err, gitrepo.ErrNotFound) {
			t.Errorf("Files of a missing folder: %v", err)
		}
		tags, branches, err := r.Refs()
		if err != nil {
			t.Fatal(err)
		}
		wantTags := map[string]string{"catalog/app/v1": v1, "catalog/app/v1.0.1": v1, "catalog/app/v2": v2}
		if diff := cmp.Diff(wantTags, tags); diff != "" {
			t.Errorf("tags (-want +got):\n%s", diff)
		}
		if branches["main"] != v2 || branches["drafts/catalog/app/ws1"] != v1 {
			t.Errorf("branches = %v", branches)
		}
		h1, err1 := r.TreeHash(v1, "catalog/app")
		h2, err2 := r.TreeHash(v2, "/catalog/app/")
		same1, err3 := r.TreeHash(v1, "")
		same2, err4 := r.TreeHash(v2, "")
		if err := errors.Join(err1, err2, err3, err4); err != nil || h1 == h2 || h1 == "" || same1 == same2 {
			t.Errorf("TreeHash: %q %q %q %q, %v", h1, h2, same1, same2, err)
		}
		// The hashes are git's own trees.
		for _, c := range []struct{ commit, dir, gitDir string }{
			{v1, "catalog/app", "catalog/app"}, {v2, "/catalog/app/", "catalog/app"}, {v1, "", ""}, {v2, "", ""},
		} {
			got, err := r.TreeHash(c.commit, c.dir)
			if want := w.Git("rev-parse", c.commit+"^{tree}:"+c.gitDir); err != nil || got != want {
				t.Errorf("TreeHash(%s, %q) = %q, %v; want git's %q", c.commit, c.dir, got, err, want)
			}
		}
		readme1, _ := r.TreeHash(v1, "")
		if _, err := r.TreeHash(v1, "catalog/nope"); !errors.Is(err, gitrepo.ErrNotFound) || readme1 == "" {
			t.Errorf("TreeHash of a missing folder: %v", err)
		}
	}
}

func TestSymlinkRefused(t *testing.T) {
	t.Parallel()
	w := gittest.New(t)
	w.Write(map[string]string{"app/Kptfile": "kind: Kptfile\n"})
	if err := os.Symlink("/etc/passwd", filepath.Join(w.Dir, "app", "leak.yaml")); err != nil {
		t.Fatal(err)
	}
	c := w.Commit("link", nil)
	r, err := gitrepo.Open(w.Dir, w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Files(c, "app"); !errors.Is(err, kptpkg.ErrSymlink) {
		t.Errorf("err = %v", err)
	}
}

func TestLocal(t *testing.T) {
	t.Parallel()
	mapped := map[string]string{"https://git.example.com/fleet/catalog.git": "/clones/catalog"}
	for in, want := range map[string]string{
		"/srv/git/catalog.git":                      "/srv/git/catalog.git",
		"file:///srv/git/catalog.git":               "/srv/git/catalog.git",
		"https://git.example.com/fleet/catalog.git": "/clones/catalog",
		"https://git.example.com/fleet/catalog":     "/clones/catalog",
		"https://git.example.com/other.git":         `git repository "https://git.example.com/other.git" is not local: kptkit reads no network; map it to a local clone with --repo-map https://git.example.com/other.git=PATH`,
		"git@github.com:x/y.git":                    `git repository "git@github.com:x/y.git" is not local: kptkit reads no network; map it to a local clone with --repo-map git@github.com:x/y.git=PATH`,
	} {
		got, err := gitrepo.Local(in, mapped)
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Local(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocalFor (issue 22, friction 4): a relative repository a file names
// is a path from that file's folder; a mapped, file:// or absolute one, or
// one no file names, reads as Local reads it.
func TestLocalFor(t *testing.T) {
	t.Parallel()
	mapped := map[string]string{"https://git.example.com/fleet/catalog.git": "/clones/catalog", "mapped/catalog": "clones/catalog"}
	for _, c := range []struct{ repo, file, want string }{
		{"repos/catalog", "fleet/cluster/repositories.yaml", "fleet/cluster/repos/catalog"},
		{"../repos/catalog.git", "/srv/fleet/cluster/repositories.yaml", "/srv/fleet/repos/catalog.git"},
		{"./catalog", "cluster.yaml", "catalog"},
		{"repos/catalog", "", "repos/catalog"},
		{"/srv/git/catalog.git", "fleet/cluster.yaml", "/srv/git/catalog.git"},
		{"file:///srv/git/catalog.git", "fleet/cluster.yaml", "/srv/git/catalog.git"},
		{"https://git.example.com/fleet/catalog", "fleet/cluster.yaml", "/clones/catalog"},
		{"mapped/catalog", "fleet/cluster.yaml", "clones/catalog"}, // --repo-map's path is the user's, from the working folder
		{"https://git.example.com/other.git", "fleet/cluster.yaml", `git repository "https://git.example.com/other.git" is not local: kptkit reads no network; map it to a local clone with --repo-map https://git.example.com/other.git=PATH`},
	} {
		got, err := gitrepo.LocalFor(c.repo, c.file, mapped)
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("LocalFor(%q, %q) = %q, want %q", c.repo, c.file, got, c.want)
		}
	}
}
