package upstream

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestFolderKeyStable holds the key of a folder upstream: it goes into
// every variant's inputs digest (kptkit.dev/inputs), which a fleet's
// packages store; another key would render every such package again.
func TestFolderKeyStable(t *testing.T) {
	t.Parallel()
	folder := kptpkg.Files{
		"catalog/app/Kptfile":     []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"),
		"catalog/app/a/b/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
		"catalog/app/a-b.yaml":    []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"),
		"catalog/app/empty.txt":   {},
		"catalog/app/bin/blob":    {0, 1, 2, 0xff, '\n', 0},
		"other/Kptfile":           []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: other\n"),
	}
	s := &Source{Folder: folder}
	for _, c := range []struct {
		want fleet.Want
		key  string
	}{
		{fleet.Want{Repo: "catalog", Package: "app"}, "folder:catalog/app:72c268e15270d4a39e7a5faca766a1984fe9c6104d78e8c4dcab830328857a72"},
		{fleet.Want{Repo: "nowhere", Package: "other"}, "folder:other:edf42d4bcba10a67835ce753b97da8b90148380a84f9a5f1b6824beedb8a0911"},
	} {
		up, err := s.Find(c.want, nil)
		if err != nil {
			t.Fatal(err)
		}
		if up.Key != c.key {
			t.Errorf("Find(%s).Key = %s, want %s", c.want, up.Key, c.key)
		}
	}
}
