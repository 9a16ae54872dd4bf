package kptpkg_test

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

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
