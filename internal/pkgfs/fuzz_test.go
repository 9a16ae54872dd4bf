package pkgfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// segments are the names fuzzed paths are made of: clashes (b.yaml as a
// file and a folder), reserved names, .git, and paths that leave.
var segments = []string{"a.yaml", "b.yaml", "c", ".git", ".kptkit", ".b.yaml.kptkit-new", "..", ".", "", "d/e"}

// fuzzCase decodes the fuzzer's bytes into what is on the disk, what a
// run read of it (old) and what it writes (files). Each record is four
// bytes: where the file is (0 on the disk only, 1 also read, 2 read and
// changed, 3 read and removed, 4 new), and three path segments (the last
// may be none).
func fuzzCase(data []byte) (disk map[string]string, old, files kptpkg.Files) {
	disk, old, files = map[string]string{}, kptpkg.Files{}, kptpkg.Files{}
	for i := 0; i+3 < len(data) && i < 64; i += 4 {
		var segs []string
		for _, b := range data[i+1 : i+4] {
			if int(b) < len(segments)*2 {
				segs = append(segs, segments[int(b)%len(segments)])
			}
		}
		p := strings.Join(segs, "/")
		if _, ok := disk[p]; ok {
			continue // one record a path
		}
		if _, ok := files[p]; ok {
			continue
		}
		content := string(rune('A' + i/4))
		switch data[i] % 5 {
		case 0:
			disk[p] = content
		case 1:
			disk[p], old[p], files[p] = content, []byte(content), []byte(content)
		case 2:
			disk[p], old[p], files[p] = content, []byte(content), []byte(content+"2")
		case 3:
			disk[p], old[p] = content, []byte(content)
		case 4:
			files[p] = []byte(content + "new")
		}
	}
	return disk, old, files
}

// FuzzWrite: a change set applied to a package folder either fails and
// leaves the whole tree as it was, or leaves every file it wrote with its
// content, every file it removed gone, every other file as it was —
// nothing outside the package changed, nothing of the write's left. A
// write stopped at any step as a kill stops it, then recovered by the
// next run, leaves the tree as it was.
func FuzzWrite(f *testing.F) {
	f.Add([]byte{1, 0, 99, 99, 2, 1, 99, 99, 4, 1, 0, 99}) // b.yaml/a.yaml while b.yaml stays
	f.Add([]byte{3, 1, 99, 99, 4, 1, 0, 99, 2, 0, 99, 99}) // b.yaml becomes a folder
	f.Add([]byte{1, 2, 0, 99, 3, 2, 1, 99, 4, 2, 99, 99})  // c becomes a file
	f.Add([]byte{4, 4, 0, 99, 4, 3, 0, 99, 4, 5, 99, 99})  // reserved names, .git
	f.Add([]byte{4, 6, 0, 99, 0, 1, 99, 99, 4, 1, 99, 99}) // .., a file kptkit did not read
	f.Add([]byte{2, 9, 0, 99, 3, 9, 1, 99, 4, 2, 9, 0, 0, 3, 3, 99})
	f.Fuzz(func(t *testing.T, data []byte) {
		disk, old, files := fuzzCase(data)
		dir := t.TempDir()
		pkg := filepath.Join(dir, "pkg")
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, dir, map[string]string{"outside.txt": "o"})
		for p := range old {
			if p == ".kptkit" || strings.HasPrefix(p, ".kptkit/") {
				delete(old, p) // never read: the folder's reserved place
			}
		}
		for p, c := range disk {
			if kptpkg.CheckPath("file", p) != nil || p == ".kptkit" || strings.HasPrefix(p, ".kptkit/") {
				// Not on the disk, so not read either.
				delete(disk, p)
				if _, read := old[p]; read {
					delete(old, p)
					delete(files, p)
				}
				continue
			}
			target := filepath.Join(pkg, filepath.FromSlash(p))
			if os.MkdirAll(filepath.Dir(target), 0o755) != nil || os.WriteFile(target, []byte(c), 0o644) != nil {
				// A clash on the disk itself: not made, nor read.
				delete(disk, p)
				if _, read := old[p]; read {
					delete(old, p)
					delete(files, p)
				}
			}
		}
		before := state(t, dir)
		if len(data) > 0 && data[0]%3 == 0 {
			// Stopped at a step, as a kill stops it, then recovered by
			// the next run: the folder is as before.
			stop := int(data[len(data)-1]) % 16
			pkgfs.SetApplyHook(func(step int, _ string) error {
				if step == stop {
					return pkgfs.ErrStop
				}
				return nil
			})
			err := pkgfs.Write(pkg, old, files)
			pkgfs.SetApplyHook(nil)
			if errors.Is(err, pkgfs.ErrStop) {
				recovered, err := pkgfs.OpenOut(pkg)
				if err != nil {
					t.Fatal(err)
				}
				recovered.Close()
				if after := state(t, dir); !equalState(before, after) {
					t.Fatalf("stopped before step %d and recovered, the tree changed:\nbefore %v\nafter  %v", stop, before, after)
				}
				return
			}
			if err == nil {
				return // fewer steps: written (checked below for other inputs)
			}
		}
		err := pkgfs.Write(pkg, old, files)
		after := state(t, dir)
		if err != nil {
			if !equalState(before, after) {
				t.Fatalf("failed (%v) and changed the tree:\nbefore %v\nafter  %v", err, before, after)
			}
			return
		}
		for p, s := range after {
			if !strings.HasPrefix(p, "pkg/") && before[p] != s {
				t.Fatalf("changed outside the package: %s", p)
			}
			if strings.HasPrefix(p, "pkg/.kptkit") {
				t.Fatalf("left: %s", p)
			}
		}
		for p, b := range files {
			if got := after["pkg/"+p]; got != "0644 "+string(b) {
				t.Fatalf("%s is %q, want %q", p, got, b)
			}
		}
		for p := range old {
			if _, ok := files[p]; !ok && after["pkg/"+p] != "" {
				t.Fatalf("%s was not removed", p)
			}
		}
		for p, c := range disk {
			if _, ok := old[p]; !ok && after["pkg/"+p] != "0644 "+c {
				t.Fatalf("%s, not read, changed: %q", p, after["pkg/"+p])
			}
		}
	})
}

func equalState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
