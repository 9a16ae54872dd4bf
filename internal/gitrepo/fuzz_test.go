package gitrepo

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// FuzzFiles builds a commit whose trees hold fuzzed entries and reads it
// with Files: it never panics, and every file it returns has a path
// CheckPath takes, planted in the tree. Each line of spec is an entry's
// path ("/" between folders, "\x01" a slash inside a name), after an
// optional kind: f a file, x executable, l a symbolic link, m a submodule,
// w a mode git does not write; entries are written unsorted, duplicates
// and all, as a hostile tree may be.
func FuzzFiles(f *testing.F) {
	for _, s := range []string{
		"app/Kptfile\napp/cm.yaml",
		"app/Kptfile\napp/sub/.git/config\napp/sub/.git/HEAD",
		"app/.GIT/x\napp/git~1/x\napp/.git./x\napp/.g\u200cit/x\napp/.git::$INDEX_ALLOCATION/x",
		"app/../x\napp//x\napp/./x\napp/a\x01b\napp/a\\b",
		"xapp/run.sh\nlapp/link\nmapp/sub\nwapp/odd\napp/a\napp/a/b\napp/a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		g, commit, planted := fuzzCommit(t, spec)
		for _, dir := range []string{"", strings.SplitN(spec, "/", 2)[0]} {
			files, err := g.Files(commit, dir)
			if err != nil {
				continue
			}
			for p := range files {
				if err := kptpkg.CheckPath("file", p); err != nil {
					t.Errorf("Files(%q) returned %q: %v", dir, p, err)
				}
				if full := join(strings.Trim(dir, "/"), p); !planted[full] {
					t.Errorf("Files(%q) returned %q, which no entry names", dir, full)
				}
			}
		}
	})
}

// TestFuzzCommit: the fuzz target's trees are read as git would check
// them out (a blob holds its name), and a hostile one is refused.
func TestFuzzCommit(t *testing.T) {
	t.Parallel()
	g, commit, _ := fuzzCommit(t, "app/Kptfile\nxapp/run.sh\nmapp/sub\napp/b/cm.yaml\nREADME.md")
	files, err := g.Files(commit, "app")
	want := kptpkg.Files{"Kptfile": []byte("Kptfile"), "run.sh": []byte("run.sh"), "b/cm.yaml": []byte("cm.yaml")}
	if diff := cmp.Diff(want, files); err != nil || diff != "" {
		t.Errorf("Files: %v (-want +got):\n%s", err, diff)
	}
	g, commit, _ = fuzzCommit(t, "app/Kptfile\napp/b/.git/config")
	if _, err := g.Files(commit, "app"); err == nil || !strings.Contains(err.Error(), `tree entry "app/b/.git": invalid path`) {
		t.Errorf("Files of a nested .git: %v", err)
	}
}

// fuzzCommit stores a commit of the entries spec names (see FuzzFiles) in
// memory; it returns the repository, the commit and the paths planted.
func fuzzCommit(t *testing.T, spec string) (*Repo, string, map[string]bool) {
	st := memory.NewStorage()
	repo, err := git.Init(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	planted := map[string]bool{}
	var entries []fuzzEntry
	for line := range strings.SplitSeq(spec, "\n") {
		e := fuzzEntry{mode: "100644"}
		if m, ok := fuzzModes[line[:min(1, len(line))]]; ok {
			e.mode, line = m, line[1:]
		}
		line = strings.ReplaceAll(line, "\x00", "")
		e.path = strings.Split(line, "/")
		for i := range e.path {
			e.path[i] = strings.ReplaceAll(e.path[i], "\x01", "/")
		}
		entries = append(entries, e)
		planted[strings.ReplaceAll(line, "\x01", "/")] = true
	}
	root := writeTree(t, st, entries)
	c := &object.Commit{TreeHash: root, Message: "fuzz", Author: object.Signature{Name: "f", When: time.Unix(0, 0)}}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatal(err)
	}
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &Repo{URL: "fuzz", r: repo}, h.String(), planted
}

var fuzzModes = map[string]string{"f": "100644", "x": "100755", "l": "120000", "m": "160000", "w": "100600"}

type fuzzEntry struct {
	mode string
	path []string // names from the root
}

// writeTree writes the tree of entries (their paths relative to it) and
// its subtrees, entries in the order met, and returns its hash.
func writeTree(t *testing.T, st *memory.Storage, entries []fuzzEntry) plumbing.Hash {
	var b bytes.Buffer
	var order []string
	subs := map[string][]fuzzEntry{}
	for _, e := range entries {
		if len(e.path) == 1 {
			h := blob(t, st, e.path[0])
			fmt.Fprintf(&b, "%s %s\x00%s", e.mode, e.path[0], h[:])
			continue
		}
		if _, ok := subs[e.path[0]]; !ok {
			order = append(order, e.path[0])
		}
		subs[e.path[0]] = append(subs[e.path[0]], fuzzEntry{e.mode, e.path[1:]})
	}
	for _, name := range order {
		h := writeTree(t, st, subs[name])
		fmt.Fprintf(&b, "40000 %s\x00%s", name, h[:])
	}
	return store(t, st, plumbing.TreeObject, b.Bytes())
}

// blob stores content as a blob.
func blob(t *testing.T, st *memory.Storage, content string) plumbing.Hash {
	return store(t, st, plumbing.BlobObject, []byte(content))
}

func store(t *testing.T, st *memory.Storage, typ plumbing.ObjectType, data []byte) plumbing.Hash {
	obj := st.NewEncodedObject()
	obj.SetType(typ)
	w, err := obj.Writer()
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
