package kptpkg_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	gitignore "github.com/monochromegane/go-gitignore"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// folderFS is a folder in memory, for reading trees deeper than a path
// can name: its files and its folders, each a folderFS, which its Sub
// returns (as internal/pkgfs's FS opens a folder from its parent). It
// counts in work the path segments it is asked to resolve: os.Root
// resolves a name one segment at a time, an openat each.
type folderFS struct {
	files   map[string]string
	folders map[string]*folderFS
	work    *int
}

// resolve finds the folder holding name and name's last segment, one
// segment at a time.
func (f *folderFS) resolve(name string) (*folderFS, string, error) {
	if name == "." {
		*f.work++
		return f, ".", nil
	}
	segs := strings.Split(name, "/")
	for _, seg := range segs[:len(segs)-1] {
		*f.work++
		if f = f.folders[seg]; f == nil {
			return nil, "", &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
	}
	*f.work++
	return f, segs[len(segs)-1], nil
}

// folder returns the folder name names.
func (f *folderFS) folder(name string) (*folderFS, error) {
	parent, base, err := f.resolve(name)
	if err != nil || base == "." {
		return parent, err
	}
	if sub := parent.folders[base]; sub != nil {
		return sub, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// mapFS is the folder's own entries as a MapFS.
func (f *folderFS) mapFS() fstest.MapFS {
	m := fstest.MapFS{}
	for n, data := range f.files {
		m[n] = &fstest.MapFile{Data: []byte(data)}
	}
	for n := range f.folders {
		m[n] = &fstest.MapFile{Mode: fs.ModeDir}
	}
	return m
}

func (f *folderFS) Open(name string) (fs.File, error) {
	parent, base, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	return parent.mapFS().Open(base)
}

func (f *folderFS) Stat(name string) (fs.FileInfo, error) {
	parent, base, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	return parent.mapFS().Stat(base)
}

func (f *folderFS) ReadDir(name string) ([]fs.DirEntry, error) {
	dir, err := f.folder(name)
	if err != nil {
		return nil, err
	}
	return dir.mapFS().ReadDir(".")
}

func (f *folderFS) ReadFile(name string) ([]byte, error) {
	parent, base, err := f.resolve(name)
	if err != nil {
		return nil, err
	}
	if data, ok := parent.files[base]; ok {
		return []byte(data), nil
	}
	return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
}

func (f *folderFS) Sub(dir string) (fs.FS, error) { return f.folder(dir) }

// deepFolder is a package whose one ConfigMap lies depth folders down
// (each named d), and that file's path.
func deepFolder(depth int, work *int) (*folderFS, string) {
	top := &folderFS{files: map[string]string{"Kptfile": kf}, work: work}
	f := top
	for range depth {
		sub := &folderFS{work: work}
		f.folders = map[string]*folderFS{"d": sub}
		f = sub
	}
	f.files = map[string]string{"cm.yaml": cm("c")}
	return top, strings.Repeat("d/", depth) + "cm.yaml"
}

// chain is deepFolder as a MapFS.
func chain(depth int) (fstest.MapFS, string) {
	p := strings.Repeat("d/", depth) + "cm.yaml"
	return fstest.MapFS{"Kptfile": {Data: []byte(kf)}, p: {Data: []byte(cm("c"))}}, p
}

// TestReadDeepIsLinear: reading a folder chain names each folder and file
// once, so twice as deep is twice the work (a reader that opens every path
// from the top, as fs.WalkDir over os.Root did, does four times the work).
func TestReadDeepIsLinear(t *testing.T) {
	t.Parallel()
	var work []int
	for _, depth := range []int{1000, 2000, 4000} {
		n := 0
		fsys, p := deepFolder(depth, &n)
		files, err := kptpkg.ReadDepth(fsys, depth)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"Kptfile", p}, files.Paths()); diff != "" {
			t.Fatalf("depth %d: paths (-want +got):\n%s", depth, diff)
		}
		work = append(work, n)
	}
	t.Logf("segments named at 1000, 2000, 4000 levels: %v", work)
	for i := 1; i < len(work); i++ {
		if work[i] > 2*work[i-1]+8 {
			t.Errorf("work %v: more than doubles with the depth", work)
		}
	}
}

// TestReadTooDeep: a folder 257 levels down is refused, before anything
// below it is opened; 256 levels are read.
func TestReadTooDeep(t *testing.T) {
	t.Parallel()
	fsys, p := chain(kptpkg.MaxDepth)
	files, err := kptpkg.Read(fsys)
	if err != nil || files[p] == nil {
		t.Fatalf("256 levels: %v", err)
	}
	n := 0
	deep, _ := deepFolder(4000, &n)
	_, err = kptpkg.Read(deep)
	want := "folder d/d/(254 more)/d is 257 levels deep: kptkit reads a package at most 256 folders deep"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if n > 2*kptpkg.MaxDepth+8 {
		t.Errorf("%d segments named before the refusal: it reads below the bound", n)
	}
}

// deepTree is a chain of n packages, each with a ConfigMap, a .krmignore at
// the top leaving out one file name at every level.
func deepTree(n int) kptpkg.Files {
	f := kptpkg.Files{"Kptfile": []byte(kf), ".krmignore": []byte("skip.yaml\n"), "cm.yaml": []byte(cm("c"))}
	dir := ""
	for i := range n {
		dir += "d/"
		f[dir+"Kptfile"] = []byte(kf)
		f[dir+"cm.yaml"] = []byte(cm(fmt.Sprint("c", i)))
		f[dir+"skip.yaml"] = []byte(cm(fmt.Sprint("s", i)))
	}
	return f
}

// TestLayoutIsLinear: what kpt needs to know of a tree (its packages, each
// one's subpackages and resource files, each file's package, what
// .krmignore leaves out) costs allocations in proportion to its folders
// and files, not to their product.
func TestLayoutIsLinear(t *testing.T) {
	var allocs []float64
	for _, n := range []int{250, 500, 1000} {
		f := deepTree(n)
		allocs = append(allocs, testing.AllocsPerRun(1, func() {
			l := f.Layout()
			l.ResourcePaths("", true)
			for _, d := range l.Packages() {
				l.Subpackages(d)
				l.ResourcePaths(d, false)
			}
			for p := range f {
				l.PackageOf(p)
			}
		}))
	}
	t.Logf("allocations at 250, 500, 1000 levels: %v", allocs)
	for i := 1; i < len(allocs); i++ {
		if allocs[i] > 2.2*allocs[i-1] {
			t.Errorf("allocations %v: more than double with the tree", allocs)
		}
	}
}

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

// TestKrmignoreWithoutPaths: .krmignore lines that name no path ("!", "/")
// match nothing (the matcher kpt uses panics on them); the others apply.
func TestKrmignoreWithoutPaths(t *testing.T) {
	t.Parallel()
	f := kptpkg.Files{"Kptfile": []byte(kf), ".krmignore": []byte("!\n /\n!/ \nx.yaml\n"), "x.yaml": []byte(cm("x")), "y.yaml": []byte(cm("y"))}
	if diff := cmp.Diff([]string{"Kptfile", "y.yaml"}, f.ResourcePaths("", true)); diff != "" {
		t.Errorf("ResourcePaths (-want +got):\n%s", diff)
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
