package kptpkg_test

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gitignore "github.com/monochromegane/go-gitignore"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestLayoutAnswersAsFiles: a Layout answers as the Files methods do, and
// as the definitions say (the package of a file is the nearest folder
// above it with a Kptfile; a subpackage's parent is the nearest package
// above it).
func TestLayoutAnswersAsFiles(t *testing.T) {
	t.Parallel()
	for _, f := range []kptpkg.Files{tree(), deepTree(3), {"a/Kptfile": []byte(kf), "a/b/c.yaml": []byte(cm("c")), "x.yaml": []byte(cm("x"))}} {
		l := f.Layout()
		if diff := cmp.Diff(f.Packages(), l.Packages()); diff != "" {
			t.Errorf("Packages (-files +layout):\n%s", diff)
		}
		for _, d := range append(l.Packages(), "", "none") {
			if diff := cmp.Diff(naiveSubpackages(f, d), l.Subpackages(d)); diff != "" {
				t.Errorf("Subpackages(%q) (-want +layout):\n%s", d, diff)
			}
			for _, deep := range []bool{false, true} {
				if diff := cmp.Diff(f.ResourcePaths(d, deep), l.ResourcePaths(d, deep)); diff != "" {
					t.Errorf("ResourcePaths(%q, %v) (-files +layout):\n%s", d, deep, diff)
				}
			}
			if diff := cmp.Diff(f.Sub(d), l.Sub(d)); diff != "" {
				t.Errorf("Sub(%q) (-files +layout):\n%s", d, diff)
			}
		}
		for p := range f {
			if got, want := l.PackageOf(p), naivePackageOf(f, p); got != want || f.PackageOf(p) != want {
				t.Errorf("PackageOf(%q) = %q (layout), %q (files), want %q", p, got, f.PackageOf(p), want)
			}
			if l.Ignored(p) != f.Ignored(p) {
				t.Errorf("Ignored(%q): layout %v, files %v", p, l.Ignored(p), f.Ignored(p))
			}
		}
	}
}

// naivePackageOf is the definition: the longest package folder p lies in.
func naivePackageOf(f kptpkg.Files, p string) string {
	best := ""
	for _, d := range f.Packages() {
		if d != "" && kptpkg.Inside(p, d) && len(d) > len(best) {
			best = d
		}
	}
	return best
}

// naiveSubpackages is the definition: the packages below dir whose
// nearest package above is dir.
func naiveSubpackages(f kptpkg.Files, dir string) []string {
	var out []string
	for _, p := range f.Packages() {
		if p != "" && p != dir && naivePackageOf(f, strings.TrimSuffix(p[:max(strings.LastIndex(p, "/"), 0)], "/")) == dir &&
			(dir == "" || kptpkg.Inside(p, dir)) {
			out = append(out, p)
		}
	}
	return out
}

// FuzzComparePaths: ComparePaths orders as comparing the segments does.
func FuzzComparePaths(f *testing.F) {
	for _, s := range [][2]string{{"a/b", "a-b"}, {"a", "a/b"}, {"a/", "a"}, {"a//b", "a/b"}, {"", "a"}, {"ab/c", "a/bc"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		want := slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
		if got := kptpkg.ComparePaths(a, b); sign(got) != want {
			t.Errorf("ComparePaths(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// naiveIgnored is the definition: the package's .krmignore matches the
// file or a folder between it and the package.
func naiveIgnored(f kptpkg.Files, p string) bool {
	pkg := naivePackageOf(f, p)
	b, ok := f[strings.TrimPrefix(pkg+"/"+kptpkg.IgnoreFile, "/")]
	if !ok {
		return false
	}
	m := gitignore.NewGitIgnoreFromReader("/"+pkg, bytes.NewReader(kptpkg.Matchable(b)))
	for d := path.Dir(p); d != pkg && d != "."; d = path.Dir(d) {
		if m.Match("/"+d, true) {
			return true
		}
	}
	return m.Match("/"+p, false)
}

// FuzzLayout: for any tree (one path a line; a line "ignore PATTERN" adds
// a pattern to the root's .krmignore), a Layout answers as the definitions
// say.
func FuzzLayout(f *testing.F) {
	f.Add("Kptfile\na.yaml\nsub/Kptfile\nsub/x/b.yaml\nsub-b/c.yml\nignore x/\nsub/.krmignore\n")
	f.Add("a/Kptfile\na/b/Kptfile\na/b/c/d.yaml\nA/Kptfile\nignore *.yaml\n")
	f.Fuzz(func(t *testing.T, lines string) {
		files, ignore := kptpkg.Files{}, ""
		for _, l := range strings.Split(lines, "\n") {
			if pattern, ok := strings.CutPrefix(l, "ignore "); ok {
				ignore += pattern + "\n"
			} else if kptpkg.CheckPath("file", l) == nil {
				files[l] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
			}
		}
		if ignore != "" {
			files[kptpkg.IgnoreFile] = []byte(ignore)
		}
		for p := range files {
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				if files[d] != nil {
					t.Skip("a path is both a file and a folder")
				}
			}
		}
		l := files.Layout()
		for _, d := range append(l.Packages(), "") {
			if diff := cmp.Diff(naiveSubpackages(files, d), l.Subpackages(d)); diff != "" {
				t.Errorf("Subpackages(%q) (-want +got):\n%s", d, diff)
			}
			var want []string
			for _, p := range files.Paths() {
				if (d == "" || strings.HasPrefix(p, d+"/")) && kptpkg.IsResource(p) && !naiveIgnored(files, p) {
					want = append(want, p)
				}
			}
			if diff := cmp.Diff(want, l.ResourcePaths(d, true)); diff != "" {
				t.Errorf("ResourcePaths(%q, true) (-want +got):\n%s", d, diff)
			}
		}
		for p := range files {
			if got, want := l.PackageOf(p), naivePackageOf(files, p); got != want {
				t.Errorf("PackageOf(%q) = %q, want %q", p, got, want)
			}
			if got, want := l.Ignored(p), naiveIgnored(files, p); got != want {
				t.Errorf("Ignored(%q) = %v, want %v", p, got, want)
			}
		}
	})
}

// TestKrmignoreWithoutPaths: .krmignore lines that name no path ("!", "/", also before a carriage return)
// match nothing (the matcher kpt uses panics on them); the others apply.
func TestKrmignoreWithoutPaths(t *testing.T) {
	t.Parallel()
	f := kptpkg.Files{"Kptfile": []byte(kf), ".krmignore": []byte("!\n /\n!/ \n!\r\n/\r\nx.yaml\r\n"), "x.yaml": []byte(cm("x")), "y.yaml": []byte(cm("y"))}
	if diff := cmp.Diff([]string{"Kptfile", "y.yaml"}, f.ResourcePaths("", true)); diff != "" {
		t.Errorf("ResourcePaths (-want +got):\n%s", diff)
	}
}
