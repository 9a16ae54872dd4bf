package kptpkg_test

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestWalk: every entry in lexical order, a folder's right after it;
// fs.SkipDir leaves a folder out, or on a file the rest of its folder; a
// folder too deep is an error unless left out.
func TestWalk(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("d/", kptpkg.MaxDepth+1) + "x.yaml"
	fsys := fstest.MapFS{
		"a/b.yaml": {}, "a/skip/c.yaml": {}, "a/z.yaml": {}, "k/1": {}, "k/2": {}, "k/3": {}, "Kptfile": {}, deep: {},
	}
	for _, c := range []struct {
		name string
		skip func(p string, d fs.DirEntry) bool
		want []string
		err  string
	}{
		{"too deep", func(string, fs.DirEntry) bool { return false }, nil,
			"folder d/d/(254 more)/d is 257 levels deep: kptkit reads a package at most 256 folders deep"},
		{"skips", func(p string, d fs.DirEntry) bool {
			return p == "a/skip" || p == "k/2" || (d.IsDir() && d.Name() == "d")
		},
			[]string{"Kptfile", "a", "a/b.yaml", "a/skip", "a/z.yaml", "d", "k", "k/1", "k/2"}, ""},
	} {
		var got []string
		err := kptpkg.Walk(fsys, func(p string, d fs.DirEntry, dir fs.FS) error {
			if strings.Count(p, "/") < 3 {
				got = append(got, p)
			}
			if !d.IsDir() {
				if _, err := fs.ReadFile(dir, d.Name()); err != nil {
					return err
				}
			}
			if c.skip(p, d) {
				return fs.SkipDir
			}
			return nil
		})
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.err)
		}
		if diff := cmp.Diff(c.want, got); c.want != nil && diff != "" {
			t.Errorf("%s: entries (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCheckDepth: a file 256 folders down passes, one 257 down is refused
// in Walk's words, whatever lies below.
func TestCheckDepth(t *testing.T) {
	t.Parallel()
	var got []string
	for _, p := range []string{"a.yaml", strings.Repeat("d/", kptpkg.MaxDepth) + "x.yaml", strings.Repeat("d/", kptpkg.MaxDepth+1) + "x.yaml", strings.Repeat("d/", 5000) + "x.yaml"} {
		err := kptpkg.CheckDepth(p)
		if err == nil {
			got = append(got, "ok")
			continue
		}
		got = append(got, err.Error())
	}
	tooDeep := "folder d/d/(254 more)/d is 257 levels deep: kptkit reads a package at most 256 folders deep"
	if diff := cmp.Diff([]string{"ok", "ok", tooDeep, tooDeep}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzRead: any tree (one path a line) is read as its files, .git left
// out, never a panic.
func FuzzRead(f *testing.F) {
	f.Add("Kptfile\na/b.yaml\na/.git/config\n.git\nc/d/e/f.yaml\n")
	f.Fuzz(func(t *testing.T, lines string) {
		fsys, want := fstest.MapFS{}, kptpkg.Files{}
		for _, p := range strings.Split(lines, "\n") {
			if !fs.ValidPath(p) || p == "." {
				continue
			}
			fsys[p] = &fstest.MapFile{Data: []byte(p)}
		}
		for p := range fsys {
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				if fsys[d] != nil {
					t.Skip("a path is both a file and a folder")
				}
			}
			if !slices.Contains(strings.Split(p, "/"), ".git") {
				want[p] = []byte(p)
			}
		}
		got, err := kptpkg.Read(fsys)
		if err != nil {
			if !errors.Is(err, kptpkg.ErrTooDeep) {
				t.Fatal(err)
			}
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
