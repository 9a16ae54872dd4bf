package image_test

import (
	"archive/tar"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/kptkit/kptkit/pkg/image"
)

var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func spec(arch string) image.Spec {
	return image.Spec{
		Function: "set-package-context",
		Binary:   []byte("#!/bin/true\n" + arch),
		Platform: v1.Platform{OS: "linux", Architecture: arch},
		Created:  created,
		Version:  "v0.1.0",
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	img, err := image.Build(spec("amd64"))
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Config{
		Entrypoint: []string{"/usr/local/bin/function"},
		User:       "65532:65532",
		Labels: map[string]string{
			"org.opencontainers.image.title":       "set-package-context",
			"org.opencontainers.image.description": "kptkit KRM function set-package-context",
			"org.opencontainers.image.version":     "v0.1.0",
			"dev.kpt.fn.exec":                      "/usr/local/bin/function",
		},
	}
	if diff := cmp.Diff(want, cf.Config); diff != "" {
		t.Errorf("config mismatch (-want +got):\n%s", diff)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" || !cf.Created.Time.Equal(created) {
		t.Errorf("platform/created = %s/%s %v", cf.OS, cf.Architecture, cf.Created)
	}
	files := map[string]string{}
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name] = string(b)
		if h.Name == "usr/local/bin/function" && h.Mode != 0o755 {
			t.Errorf("binary mode %o, want 755", h.Mode)
		}
	}
	if diff := cmp.Diff(map[string]string{"usr": "", "usr/local": "", "usr/local/bin": "", "usr/local/bin/function": "#!/bin/true\namd64"}, files); diff != "" {
		t.Errorf("layer files mismatch (-want +got):\n%s", diff)
	}
}

func TestReproducible(t *testing.T) {
	t.Parallel()
	digest := func(s image.Spec) v1.Hash {
		img, err := image.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := digest(spec("amd64")), digest(spec("amd64"))
	if a != b {
		t.Errorf("two builds of the same input differ: %s and %s", a, b)
	}
	if c := digest(spec("arm64")); c == a {
		t.Errorf("different binaries gave the same digest %s", c)
	}
}

func TestIndex(t *testing.T) {
	t.Parallel()
	var imgs []v1.Image
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := image.Build(spec(arch))
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, img)
	}
	idx, err := image.Index(imgs...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range m.Manifests {
		got = append(got, d.Platform.String())
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, got); diff != "" {
		t.Errorf("platforms mismatch (-want +got):\n%s", diff)
	}
}

func TestBuildRefusesEmpty(t *testing.T) {
	t.Parallel()
	if _, err := image.Build(image.Spec{Function: "x"}); err == nil {
		t.Error("Build without a binary succeeded")
	}
}
