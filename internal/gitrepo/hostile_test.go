package gitrepo_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gitrepo"
	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestHostileTrees: an upstream whose tree (made with git's plumbing) holds
// a path git refuses to check out fails the revision, naming the
// repository, the commit and the path; paths near them are read.
func TestHostileTrees(t *testing.T) {
	t.Parallel()
	const kf = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
	tests := []struct {
		name    string
		planted map[string]string
		want    string // in the error; "" reads the package
	}{
		{"a nested .git", map[string]string{"app/sub/.git/HEAD": "ref: refs/heads/main\n", "app/sub/.git/config": "[core]\n\tfsmonitor = touch pwned\n"},
			`tree entry "app/sub/.git": invalid path: ".git" is git's own folder`},
		{".git at the package's top", map[string]string{"app/.git/config": "[core]\n"}, `tree entry "app/.git": invalid path: ".git" is git's own folder`},
		{".GIT", map[string]string{"app/.GIT/x": "x\n"}, `tree entry "app/.GIT": invalid path: ".GIT" is git's own folder`},
		{"a .git file", map[string]string{"app/sub/.git": "gitdir: /tmp/x\n"}, `tree entry "app/sub/.git": invalid path: ".git" is git's own folder`},
		{"git~1", map[string]string{"app/sub/git~1/x": "x\n"}, `tree entry "app/sub/git~1": invalid path: "git~1" is .git on NTFS by its short name git~1`},
		{".git.", map[string]string{"app/.git./x": "x\n"}, `tree entry "app/.git.": invalid path: ".git." is .git on NTFS, which drops trailing dots and spaces`},
		{".git space", map[string]string{"app/.git /x": "x\n"}, `tree entry "app/.git ": invalid path: ".git " is .git on NTFS`},
		{"a stream", map[string]string{"app/.git::$INDEX_ALLOCATION/config": "x\n"}, `tree entry "app/.git::$INDEX_ALLOCATION": invalid path: ".git::$INDEX_ALLOCATION" is .git on NTFS (a stream of it)`},
		{"an HFS+ ignored code point", map[string]string{"app/.g\u200cit/x": "x\n"}, `tree entry "app/.g\u200cit": invalid path: ".g\u200cit" is .git on HFS+, which ignores U+200C`},
		{"U+FEFF", map[string]string{"app/a/b/\ufeff.GiT/x": "x\n"}, `tree entry "app/a/b/\ufeff.GiT": invalid path: "\ufeff.GiT" is .git on HFS+, which ignores U+FEFF`},
		{"a backslash", map[string]string{`app/a\b`: "x\n"}, `tree entry "app/a\\b": a backslash or NUL is not allowed in a path`},
		{"..", map[string]string{"app/../x": "x\n"}, `tree entry "app/.." must stay inside its folder: no ".." segment`},
		{"near misses are read", map[string]string{"app/.github/x.yaml": "x\n", "app/.gitkeep": "", "app/git~2/x": "x\n", "app/.git.yaml": "x\n", "app/.g\u200bit/x": "x\n"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := gittest.New(t)
			files := map[string]string{"app/Kptfile": kf, "README.md": "# catalog\n"}
			for p, c := range tc.planted {
				files[p] = c
			}
			commit := w.Plant("hostile", files, "app/v1")
			for _, dir := range []string{w.Dir, w.Bare()} {
				r, err := gitrepo.Open("file://"+dir, dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, folder := range []string{"app", ""} {
					got, err := r.Files(commit, folder)
					if tc.want == "" {
						want := kptpkg.Files{}
						for p, c := range files {
							if folder == "" {
								want[p] = []byte(c)
							} else if rel, ok := strings.CutPrefix(p, folder+"/"); ok {
								want[rel] = []byte(c)
							}
						}
						if diff := cmp.Diff(want, got); err != nil || diff != "" {
							t.Errorf("Files(%q): %v (-want +got):\n%s", folder, err, diff)
						}
						continue
					}
					wantErr := `reading "` + folder + `" at commit ` + commit[:12] + ` of file://` + dir + `: ` + tc.want
					if err == nil || !strings.HasPrefix(err.Error(), wantErr) || got != nil {
						t.Errorf("Files(%q) = %d files, %v\nwant the error %s", folder, len(got), err, wantErr)
					}
				}
			}
		})
	}
}

// TestDeepTree: a tree may nest as deep below the folder read as kptkit
// reads a package (kptpkg.MaxDepth, 256 folders) and no deeper: the 257th
// folder is refused before it is read, in kptpkg.Walk's words.
func TestDeepTree(t *testing.T) {
	t.Parallel()
	w := gittest.New(t)
	deep := func(n int) string { return "app/" + strings.Repeat("d/", n) + "cm.yaml" }
	commit := w.Plant("deep", map[string]string{"app/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\n", deep(256): "x: 1\n"}, "ok")
	r, err := gitrepo.Open(w.Dir, w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if files, err := r.Files(commit, "app"); err != nil || len(files) != 2 {
		t.Fatalf("256 folders deep: %d files, %v", len(files), err)
	}
	commit = w.Plant("deeper", map[string]string{"app/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\n", deep(257): "x: 1\n"}, "deeper")
	files, err := r.Files(commit, "app")
	want := `reading "app" at commit ` + commit[:12] + ` of ` + w.Dir + `: folder d/d/(254 more)/d is 257 levels deep: kptkit reads a package at most 256 folders deep`
	if files != nil || err == nil || err.Error() != want || !errors.Is(err, kptpkg.ErrTooDeep) {
		t.Errorf("257 folders deep: %d files, %v\nwant %s", len(files), err, want)
	}
}
