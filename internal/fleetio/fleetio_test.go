package fleetio_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/fleetio"
)

// TestReadObjects: every document of the folder's YAML files, with the
// file each came from, in path order; what .krmignore names and files
// that are not YAML are left out. A file given alone is read as such.
func TestReadObjects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for p, s := range map[string]string{
		"a.yaml":            "kind: A\nmetadata:\n  name: a1\n---\nkind: A\nmetadata:\n  name: a2\n",
		"sub/b.yml":         "kind: B\nmetadata:\n  name: b\n",
		"notes.txt":         "kind: Text\n",
		".krmignore":        "/drafts/\n",
		"drafts/draft.yaml": "kind: Draft\nmetadata:\n  name: d\n",
		"sub/drafts/x.yaml": "kind: Kept\nmetadata:\n  name: k\n",
	} {
		f := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type object struct{ Kind, Name, Where string }
	read := func(root string) []object {
		t.Helper()
		nodes, where, err := fleetio.ReadObjects(root)
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != len(where) {
			t.Fatalf("%d objects, %d files", len(nodes), len(where))
		}
		var out []object
		for i, n := range nodes {
			out = append(out, object{n.GetKind(), n.GetName(), where[i]})
			if a := n.GetAnnotations(); len(a) != 0 {
				t.Errorf("%s/%s has annotations %v", n.GetKind(), n.GetName(), a)
			}
		}
		return out
	}
	want := []object{
		{"A", "a1", filepath.Join(dir, "a.yaml")},
		{"A", "a2", filepath.Join(dir, "a.yaml")},
		{"B", "b", filepath.Join(dir, "sub/b.yml")},
		{"Kept", "k", filepath.Join(dir, "sub/drafts/x.yaml")},
	}
	if diff := cmp.Diff(want, read(dir)); diff != "" {
		t.Errorf("folder (-want +got):\n%s", diff)
	}
	draft := filepath.Join(dir, "drafts", "draft.yaml")
	if diff := cmp.Diff([]object{{"Draft", "d", draft}}, read(draft)); diff != "" {
		t.Errorf("one file (-want +got):\n%s", diff)
	}
}
