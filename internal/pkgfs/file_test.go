package pkgfs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/pkgfs"
)

// TestWriteUserFile: a file the user named is replaced whole (its mode kept),
// left alone when it holds the bytes already, written through a symbolic
// link and into a device; a folder in its place, a missing folder and a
// link to nothing are errors naming the file. Nothing else is left beside
// it.
func TestWriteUserFile(t *testing.T) {
	t.Parallel()
	type file struct {
		Data string
		Mode fs.FileMode
	}
	for _, tc := range []struct {
		name   string
		before map[string]file // "->x": a symbolic link to x; "/": a folder
		target string
		wrote  bool
		err    string
		after  map[string]file
	}{{
		name: "a new file", target: "out.yaml", wrote: true,
		after: map[string]file{"out.yaml": {"new\n", 0o644}},
	}, {
		name: "a file replaced, its mode kept", target: "out.yaml", wrote: true,
		before: map[string]file{"out.yaml": {"old\n", 0o600}},
		after:  map[string]file{"out.yaml": {"new\n", 0o600}},
	}, {
		name: "the same bytes: not written", target: "out.yaml",
		before: map[string]file{"out.yaml": {"new\n", 0o640}},
		after:  map[string]file{"out.yaml": {"new\n", 0o640}},
	}, {
		name: "through a symbolic link: the target replaced, the link kept", target: "link", wrote: true,
		before: map[string]file{"real.yaml": {"old\n", 0o644}, "link": {Data: "->real.yaml"}},
		after:  map[string]file{"real.yaml": {"new\n", 0o644}, "link": {Data: "->real.yaml"}},
	}, {
		name: "a link to nothing", target: "link", err: "cannot write DIR/link: no such file or directory",
		before: map[string]file{"link": {Data: "->gone.yaml"}},
		after:  map[string]file{"link": {Data: "->gone.yaml"}},
	}, {
		name: "a folder in its place", target: "out", err: "cannot write DIR/out: it is a folder",
		before: map[string]file{"out": {Data: "/"}},
		after:  map[string]file{"out": {Data: "/"}},
	}, {
		name: "a missing folder", target: "no/out.yaml", err: "cannot write DIR/no/out.yaml: no such file or directory",
		after: map[string]file{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, f := range tc.before {
				p := filepath.Join(dir, name)
				var err error
				switch {
				case f.Data == "/":
					err = os.Mkdir(p, 0o755)
				case strings.HasPrefix(f.Data, "->"):
					err = os.Symlink(f.Data[2:], p)
				default:
					if err = os.WriteFile(p, []byte(f.Data), f.Mode); err == nil {
						err = os.Chmod(p, f.Mode)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			wrote, err := pkgfs.WriteFile(filepath.Join(dir, tc.target), []byte("new\n"))
			gotErr := ""
			if err != nil {
				gotErr = strings.ReplaceAll(err.Error(), dir, "DIR")
			}
			if gotErr != tc.err || wrote != tc.wrote {
				t.Errorf("wrote %v, error %q; want %v, %q", wrote, gotErr, tc.wrote, tc.err)
			}
			got := map[string]file{}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				p := filepath.Join(dir, e.Name())
				info, err := os.Lstat(p)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case info.IsDir():
					got[e.Name()] = file{Data: "/"}
				case info.Mode()&fs.ModeSymlink != 0:
					target, _ := os.Readlink(p)
					got[e.Name()] = file{Data: "->" + target}
				default:
					b, _ := os.ReadFile(p)
					got[e.Name()] = file{string(b), info.Mode().Perm()}
				}
			}
			if d := cmp.Diff(tc.after, got); d != "" {
				t.Errorf("folder (-want +got):\n%s", d)
			}
		})
	}
}

// TestWriteUserFileToADevice: a device is written to, not replaced.
func TestWriteUserFileToADevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip(err)
	}
	if wrote, err := pkgfs.WriteFile(os.DevNull, []byte("x\n")); err != nil || !wrote {
		t.Errorf("%s: wrote %v, %v", os.DevNull, wrote, err)
	}
	if info, err := os.Stat(os.DevNull); err != nil || info.Mode().IsRegular() {
		t.Errorf("%s was replaced: %v", os.DevNull, err)
	}
}
