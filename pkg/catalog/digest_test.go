package catalog

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestDigestStable holds the value of a package version's digest: it is
// stored in catalog indexes (spec.versions[].source.digest), which are read
// again to tell an unchanged version.
func TestDigestStable(t *testing.T) {
	t.Parallel()
	files := kptpkg.Files{
		"Kptfile":     []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"),
		"a/b/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
		"a-b.yaml":    []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"),
		"empty.txt":   {},
		"bin/blob":    {0, 1, 2, 0xff, '\n', 0},
	}
	for _, c := range []struct {
		files kptpkg.Files
		want  string
	}{
		{files, "sha256:d3c1ab2e8c3ce89104cab6215902a4bac003dce41c383a9c9a954546ded90915"},
		{kptpkg.Files{}, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	} {
		if got := digest(c.files); got != c.want {
			t.Errorf("digest(%d files) = %s, want %s", len(c.files), got, c.want)
		}
	}
}
