package gitrepo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// TestObjectIndex: the object index never calls an object of the
// repository absent (loose or in a pack of version 2, or in a pack kptkit
// wrote), calls absent a hash in no loose folder and no pack, and answers
// "may be there" for everything once it cannot read the folder its way (an
// alternates file, an incoming quarantine folder, a version 1 index).
func TestObjectIndex(t *testing.T) {
	t.Parallel()
	newRepo := func(t *testing.T, repack ...string) *gittest.Plumb {
		p := gittest.NewPlumb(t)
		a := p.Commit(map[string]string{"a/Kptfile": "kind: Kptfile\n", "a/cm.yaml": "kind: ConfigMap\n"}, "a", "A", "a@x")
		if repack != nil {
			p.Ref("refs/heads/a", a)
			p.Git(repack...)
			if packs, _ := filepath.Glob(filepath.Join(p.Dir, "objects/pack/*.idx")); len(packs) != 1 {
				t.Fatalf("packs: %v", packs)
			}
		}
		p.Ref("refs/heads/main", p.Commit(map[string]string{"b/cm.yaml": "kind: ConfigMap\nb: 1\n"}, "b", "A", "a@x", a))
		return p
	}
	objectsOf := func(p *gittest.Plumb) []plumbing.Hash {
		var hs []plumbing.Hash
		for _, l := range strings.Fields(p.Git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)")) {
			hs = append(hs, plumbing.NewHash(l))
		}
		return hs
	}
	// unheld returns a hash of none of hs, outside their loose folders.
	unheld := func(hs []plumbing.Hash) plumbing.Hash {
		used := map[byte]bool{}
		for _, h := range hs {
			used[h[0]] = true
		}
		for b := range 256 {
			if !used[byte(b)] {
				return plumbing.Hash{byte(b), 1, 2, 3}
			}
		}
		t.Fatal("every loose folder is used")
		return plumbing.ZeroHash
	}
	for _, tc := range []struct {
		name   string
		repack []string
		plant  func(t *testing.T, objects string)
		usable bool
	}{
		{name: "loose and packed", repack: []string{"repack", "-adq"}, usable: true},
		{name: "loose only", usable: true},
		{name: "version 1 index", repack: []string{"-c", "pack.indexVersion=1", "repack", "-adq"}},
		{name: "alternates", plant: func(t *testing.T, objects string) {
			if err := os.WriteFile(filepath.Join(objects, "info", "alternates"), []byte("/elsewhere/objects\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "incoming quarantine", plant: func(t *testing.T, objects string) {
			if err := os.Mkdir(filepath.Join(objects, "incoming-abc"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newRepo(t, tc.repack...)
			objects := filepath.Join(p.Dir, "objects")
			if tc.plant != nil {
				tc.plant(t, objects)
			}
			x := readObjectIndex(objects)
			hs := objectsOf(p)
			for _, h := range hs {
				if x.absent(h) {
					t.Errorf("%s is held, and called absent", h)
				}
			}
			missing := unheld(hs)
			if got := x.absent(missing); got != tc.usable {
				t.Errorf("absent(%s) = %v, want %v", missing, got, tc.usable)
			}
			x.wrote([]plumbing.Hash{missing})
			if x.absent(missing) {
				t.Errorf("%s was written by kptkit, and called absent", missing)
			}
		})
	}
}

// TestPackHoldsOnlyNewObjects: a change whose files the repository holds
// already (in kptkit's pack of the change before) writes a pack of its new
// objects alone — here the commit — which git verifies.
func TestPackHoldsOnlyNewObjects(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	g := open(t, r.Dir)
	files := kptpkg.Files{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n"), "cm.yaml": []byte("kind: ConfigMap\n")}
	var packs []string
	for i, ref := range []string{"refs/heads/drafts/clusters/edge9/x/packagevariant-1", "refs/heads/drafts/clusters/edge9/x/packagevariant-2"} {
		sig := pkgrev.Signature{Name: "a", Email: "a@x", When: when}
		_, err := g.Apply(context.Background(), pkgrev.Change{
			Commit: &pkgrev.NewCommit{Base: r.Commits["a3"], Parents: []string{r.Commits["a3"]}, Path: "clusters/edge9/x", Files: files,
				Message: "m" + ref, Author: sig, Committer: sig},
			Refs: []pkgrev.RefUpdate{{Name: ref, ToCommit: true}},
		})
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
		all, _ := filepath.Glob(filepath.Join(r.Dir, "objects/pack/pack-*.idx"))
		for _, p := range all {
			if !strings.Contains(strings.Join(packs, " "), p) {
				packs = append(packs, p)
			}
		}
	}
	var got []string
	for _, p := range packs {
		v := r.Git("verify-pack", "-v", p)
		v = v[strings.LastIndex(v, "non delta:"):]
		got = append(got, v[:strings.IndexByte(v, '\n')])
	}
	want := []string{"non delta: 7 objects", "non delta: 1 object"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packs (-want +got):\n%s", diff)
	}
	r.Git("fsck", "--strict", "--no-dangling")
}

// FuzzIndexNames: a pack index of any bytes is read or refused, never a
// panic; what is read is whole names, and each is found.
func FuzzIndexNames(f *testing.F) {
	v2 := append(append([]byte{}, indexMagic...), 0, 0, 0, 2)
	fanout := make([]byte, 256*4)
	fanout[len(fanout)-1] = 1
	f.Add(append(append(append([]byte{}, v2...), fanout...), make([]byte, 20)...))
	f.Add(v2)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		names, err := indexNames(bytes.NewReader(b), int64(len(b)), maxIndexObjects)
		if err != nil {
			return
		}
		if len(names)%20 != 0 {
			t.Fatalf("%d bytes of names", len(names))
		}
		if !sorted(names) {
			return // an index out of order is looked up as it is
		}
		for i := 0; i+20 <= len(names); i += 20 {
			if !indexHas(names, plumbing.Hash(names[i:i+20])) {
				t.Fatalf("name %d not found", i/20)
			}
		}
	})
}

// sorted reports whether an index's names are in order.
func sorted(names []byte) bool {
	for j := 20; j+20 <= len(names); j += 20 {
		if bytes.Compare(names[j-20:j], names[j:j+20]) > 0 {
			return false
		}
	}
	return true
}

// TestIndexNamesBounded: an index's names are read when they fit the
// limit and the file, and refused before they are read otherwise.
func TestIndexNamesBounded(t *testing.T) {
	t.Parallel()
	index := func(n int, names int) []byte {
		b := append(append([]byte{}, indexMagic...), 0, 0, 0, 2)
		fanout := make([]byte, 256*4)
		fanout[len(fanout)-1] = byte(n)
		b = append(b, fanout...)
		for i := range names {
			b = append(b, bytes.Repeat([]byte{byte(i)}, 20)...)
		}
		return b
	}
	for _, tc := range []struct {
		name        string
		b           []byte
		limit, want int
		err         bool
	}{
		{name: "within the limit", b: index(3, 3), limit: 3, want: 3},
		{name: "over the limit", b: index(3, 3), limit: 2, err: true},
		{name: "cut short", b: index(3, 2), limit: 3, err: true},
		{name: "no names", b: index(0, 0), limit: 0, want: 0},
	} {
		names, err := indexNames(bytes.NewReader(tc.b), int64(len(tc.b)), tc.limit)
		if (err != nil) != tc.err || len(names) != tc.want*20 {
			t.Errorf("%s: %d names, %v", tc.name, len(names)/20, err)
		}
	}
}
