package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// TestPackWritten: a change's objects go in as one pack kptkit writes,
// with its index, which git verifies and reads (the files as written) and
// go-git reads in the same Repo right after.
func TestPackWritten(t *testing.T) {
	t.Parallel()
	r := gittest.NewPorchRepo(t)
	g := open(t, r.Dir)
	files := kptpkg.Files{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n"), "sub/cm.yaml": []byte(strings.Repeat("a: b\n", 5000))}
	commit, err := g.Apply(context.Background(), pkgrev.Change{
		Commit: &pkgrev.NewCommit{Base: r.Commits["a3"], Parents: []string{r.Commits["a3"]}, Path: "clusters/edge9/x", Files: files, Message: "m",
			Author: pkgrev.Signature{Name: "a", Email: "a@x", When: when}, Committer: pkgrev.Signature{Name: "a", Email: "a@x", When: when}},
		Refs: []pkgrev.RefUpdate{{Name: "refs/heads/drafts/clusters/edge9/x/packagevariant-1", ToCommit: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(r.Dir, "objects/pack/pack-*.idx"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	verify := r.Git("verify-pack", "-v", packs[0])
	if !strings.Contains(verify, "non delta: 8 objects") {
		t.Errorf("git verify-pack:\n%s", verify)
	}
	r.Git("fsck", "--strict", "--no-dangling")
	if got := r.Git("show", commit+":clusters/edge9/x/sub/cm.yaml") + "\n"; got != string(files["sub/cm.yaml"]) {
		t.Errorf("git reads the file as %d bytes", len(got))
	}
	got, err := g.Files(commit, "clusters/edge9/x")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

// TestPackCompressedOnce: an object written into a second pack is not
// compressed again (its compressed content is kept), and the second pack
// is byte for byte the first, which git verifies.
func TestPackCompressedOnce(t *testing.T) {
	t.Parallel()
	var objs []plumbing.EncodedObject
	for _, content := range []string{"kind: ConfigMap\n" + t.Name(), strings.Repeat("x: y\n", 300) + t.Name()} {
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.BlobObject)
		_, _ = o.Write([]byte(content))
		objs = append(objs, o)
	}
	var got []string
	var packs [][]byte
	for range 2 {
		dir := t.TempDir()
		if err := writePack(dir, objs); err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			_, ok := compressed.get(o.Hash())
			got = append(got, fmt.Sprint("kept ", ok))
		}
		files, _ := filepath.Glob(filepath.Join(dir, "pack-*.pack"))
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		packs = append(packs, b)
		out, err := exec.Command("git", "verify-pack", "-v", strings.TrimSuffix(files[0], ".pack")+".idx").CombinedOutput()
		got = append(got, fmt.Sprint(strings.Contains(string(out), "non delta: 2 objects"), err))
	}
	got = append(got, fmt.Sprint("same pack ", bytes.Equal(packs[0], packs[1])))
	want := []string{"kept true", "kept true", "true <nil>", "kept true", "kept true", "true <nil>", "same pack true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
