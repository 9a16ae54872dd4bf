package functions_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/image"
)

// TestMetadata: every function has a metadata.yaml in the kpt function
// catalog's format, naming its image and folder, and listing exactly the
// example packages named after it (examples/<function>-<case>).
func TestMetadata(t *testing.T) {
	t.Parallel()
	mains, err := filepath.Glob("*/main.go")
	if err != nil || len(mains) == 0 {
		t.Fatalf("no functions found: %v", err)
	}
	for _, m := range mains {
		name := filepath.Dir(m)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			md, err := image.ParseMetadata(functions.Metadata(name))
			if err != nil {
				t.Fatalf("%s/metadata.yaml: %v", name, err)
			}
			var examples []string
			dirs, _ := filepath.Glob(filepath.Join("..", "examples", name+"-*"))
			for _, d := range dirs {
				if info, err := os.Stat(d); err == nil && info.IsDir() {
					examples = append(examples, "https://github.com/kptkit/kptkit/tree/main/examples/"+filepath.Base(d))
				}
			}
			want := md
			want.Image = "ghcr.io/kptkit/" + name
			want.SourceURL = "https://github.com/kptkit/kptkit/tree/main/functions/" + name
			want.ExamplePackageURLs = examples
			if d := cmp.Diff(want, md); d != "" {
				t.Errorf("%s/metadata.yaml (-want +got):\n%s", name, d)
			}
			if md.Tags[0] != "mutator" && md.Tags[0] != "validator" {
				t.Errorf("%s/metadata.yaml: the first tag is %q: want mutator or validator (the Kptfile list it goes in)", name, md.Tags[0])
			}
		})
	}
}
