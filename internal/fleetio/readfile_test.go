package fleetio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An input file larger than the bound is refused before it is read whole;
// one within it is read as it is.
func TestReadFileBounded(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "cluster.yaml")
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := readFile(name, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(text, string(b)); d != "" {
		t.Errorf("read (-want +got):\n%s", d)
	}
	_, err = readFile(name, 16)
	want := "cannot read " + name + ": the input is larger than 16B, the most variants render allows: refused before reading it all"
	if err == nil || err.Error() != want {
		t.Errorf("error: got %v, want %s", err, want)
	}
}
