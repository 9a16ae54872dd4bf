package kptpkg_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// TestDigestFraming: each framing writes its fields as the digest stored
// with it was first written (the stored values themselves are held by
// pkg/fleet's TestSealStable, pkg/catalog's TestDigestStable and
// internal/upstream's TestFolderKeyStable).
func TestDigestFraming(t *testing.T) {
	t.Parallel()
	files := kptpkg.Files{"a/b": []byte("x\x00y"), "a-b": {}, "Kptfile": []byte("k\n")}
	for _, c := range []struct {
		framing kptpkg.Framing
		paths   []string
		want    string
	}{
		{kptpkg.LineFraming, files.Paths(), "2:id\n7:Kptfile\n2:k\n\n3:a/b\n3:x\x00y\n3:a-b\n0:\n"},
		{kptpkg.LengthFraming, files.Paths(), "2:id7:Kptfile2:k\n3:a/b3:x\x00y3:a-b0:"},
		{kptpkg.NULFraming, []string{"Kptfile", "a-b", "a/b"}, "id\x00Kptfile\x00k\n\x00a-b\x00\x00a/b\x00x\x00y\x00"},
	} {
		d := kptpkg.NewDigest(c.framing)
		d.Field("id")
		d.Files(files, c.paths)
		sum := sha256.Sum256([]byte(c.want))
		if got, want := d.Hex(), hex.EncodeToString(sum[:]); got != want {
			t.Errorf("framing %d: digest %s, want the sha256 of %q, %s", c.framing, got, c.want, want)
		}
	}
}
