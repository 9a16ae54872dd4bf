package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// FuzzRefFiles reads fuzzed packed-refs and loose ref files as kptkit
// reads a plain git folder's refs (plainRefs): it never panics; it returns
// refs (each a branch or tag with a hash) or errInProcess, git's to read.
func FuzzRefFiles(f *testing.F) {
	f.Add("# pack-refs with: peeled fully-peeled sorted \n"+strings.Repeat("a", 40)+" refs/heads/main\n^"+strings.Repeat("b", 40)+"\n", strings.Repeat("c", 40)+"\n")
	f.Add(strings.Repeat("a", 40)+" refs/tags/v1\n", "ref: refs/heads/main\n")
	f.Add("garbage\n", "")
	f.Fuzz(func(t *testing.T, packed, loose string) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "refs", "heads", "drafts"), 0o755); err != nil {
			t.Fatal(err)
		}
		for p, b := range map[string]string{"packed-refs": packed, "refs/heads/drafts/x": loose} {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		refs, err := plainRefs(dir)
		if err != nil {
			if !errors.Is(err, errInProcess) {
				t.Fatalf("error %v, want errInProcess", err)
			}
			return
		}
		for name, hash := range refs {
			if !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/tags/") || !validRefName(name) || !plumbing.IsHash(hash) {
				t.Errorf("ref %q at %q", name, hash)
			}
		}
	})
}
