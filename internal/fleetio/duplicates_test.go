package fleetio_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/fleetio"
)

// TestReadObjectsRefusesDuplicateKeys: a key written twice in a mapping of
// any object read, of the items of a List, or of the List itself, is an
// error naming the file, the object and the file's lines of both keys.
func TestReadObjectsRefusesDuplicateKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{{
		name: "an item of a List",
		in:   "# repositories\napiVersion: v1\nkind: List\nitems:\n- kind: Repository\n  metadata:\n    name: edge\n    labels: {region: eu, region: us}\n",
		want: `Repository/edge: line 8: mapping key "region" already defined at line 8`,
	}, {
		name: "the List",
		in:   "apiVersion: v1\nkind: List\nitems:\n- kind: Repository\n  metadata:\n    name: edge\nmetadata: {a: 1, a: 2}\nkind: List\n",
		want: `List: line 7: mapping key "a" already defined at line 7; List: line 8: mapping key "kind" already defined at line 2`,
	}, {
		name: "the second document",
		in:   "kind: A\nmetadata:\n  name: a\n---\nkind: PackageVariant\nmetadata:\n  name: pv\nspec:\n  upstream: {repo: a}\n  upstream: {repo: b}\n",
		want: `PackageVariant/pv: line 10: mapping key "upstream" already defined at line 9`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "objects.yaml")
			if err := os.WriteFile(file, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := fleetio.ReadObjects(file)
			if diff := cmp.Diff("cannot read "+file+": "+tc.want, fmt.Sprint(err)); diff != "" {
				t.Errorf("ReadObjects (-want +got):\n%s", diff)
			}
		})
	}
}
