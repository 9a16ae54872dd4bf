package fleet

import (
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// digestFiles are a package's files as the digests' stability tests read
// them: paths whose walk order differs from byte order ("a/b" before
// "a-b"), an empty file, bytes that are not text, and a Kptfile holding a
// seal (zeroed before the seal is computed).
var digestFiles = kptpkg.Files{
	"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n  annotations:\n" +
		"    kptkit.dev/rendered: sha256:" + "1111111111111111111111111111111111111111111111111111111111111111" + "\n"),
	"a/b/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
	"a-b.yaml":    []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"),
	"empty.txt":   {},
	"bin/blob":    {0, 1, 2, 0xff, '\n', 0},
}

// TestSealStable holds the seal's value: it is stored in every package a
// fleet wrote (kptkit.dev/rendered), and a seal computed otherwise would
// take every package of every fleet for one edited by hand.
func TestSealStable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		files    kptpkg.Files
		pristine bool
		want     string
	}{
		{digestFiles, true, "sha256:d12fe68b5afaa7d93e3b102c68ce11decdeeaa2a9aee30cd3cfe64de560fa563"},
		{digestFiles, false, "sha256:8afbbcf8b8f5a3d51fe396c32ea9d9ef636da4376609341d4476524b6f647e2e"},
		{kptpkg.Files{}, true, "sha256:2c23bc2d6936ec4a9a65a2557665a15d54a3dd28a8ad28958c706be510c80d04"},
	} {
		if got := seal(c.files, c.pristine); got != c.want {
			t.Errorf("seal(%d files, %v) = %s, want %s", len(c.files), c.pristine, got, c.want)
		}
	}
}

// TestSealIgnoresItsOwnValue: the seal a Kptfile holds is zeroed before
// the seal is computed, whatever it was.
func TestSealIgnoresItsOwnValue(t *testing.T) {
	t.Parallel()
	other := digestFiles.Clone()
	other["Kptfile"] = []byte(strings.Replace(string(other["Kptfile"]), "sha256:1111", "sha256:2222", 1))
	if a, b := seal(digestFiles, true), seal(other, true); a != b {
		t.Errorf("the seals of two packages that differ in their seal only differ: %s and %s", a, b)
	}
}
