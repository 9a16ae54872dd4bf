package image_test

import (
	"archive/tar"
	"io"
	"strings"
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

// TestBuildCommand: a command's image has its binary at the command's
// path, the command as its entrypoint, its ports, and no kpt exec label.
func TestBuildCommand(t *testing.T) {
	t.Parallel()
	s := spec("amd64")
	s.Function, s.Command, s.Ports = "function-runner", []string{"/usr/local/bin/kptkit", "function-runner"}, []string{"9445/tcp"}
	img, err := image.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Config{
		Entrypoint:   []string{"/usr/local/bin/kptkit", "function-runner"},
		User:         "65532:65532",
		ExposedPorts: map[string]struct{}{"9445/tcp": {}},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "function-runner",
			"org.opencontainers.image.description": "kptkit KRM function function-runner",
			"org.opencontainers.image.version":     "v0.1.0",
		},
	}
	if diff := cmp.Diff(want, cf.Config); diff != "" {
		t.Errorf("config mismatch (-want +got):\n%s", diff)
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
	}
	if diff := cmp.Diff(map[string]string{"usr": "", "usr/local": "", "usr/local/bin": "", "usr/local/bin/kptkit": "#!/bin/true\namd64"}, files); diff != "" {
		t.Errorf("layer files mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"kptkit", "/", "/usr/../kptkit", "/usr/local/bin/"} {
		s.Command = []string{bad}
		if _, err := image.Build(s); err == nil {
			t.Errorf("Build with the command %q succeeded", bad)
		}
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

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     image.Metadata
		err      string
	}{
		{name: "the catalog's fields", in: `image: ghcr.io/kptkit/set-package-context
description: Sets keys.
tags: [mutator, porch]
sourceURL: https://github.com/kptkit/kptkit/tree/main/functions/set-package-context
examplePackageURLs: [https://github.com/kptkit/kptkit/tree/main/examples/set-package-context-eval]
emails: [team@example.com]
license: Apache-2.0
`, want: image.Metadata{Image: "ghcr.io/kptkit/set-package-context", Description: "Sets keys.", Tags: []string{"mutator", "porch"},
			SourceURL:          "https://github.com/kptkit/kptkit/tree/main/functions/set-package-context",
			ExamplePackageURLs: []string{"https://github.com/kptkit/kptkit/tree/main/examples/set-package-context-eval"},
			Emails:             []string{"team@example.com"}, License: "Apache-2.0"}},
		{name: "missing and unknown fields", in: "image: x\ndescrption: typo\n",
			err: `description: required; descrption: unknown field "descrption" (did you mean "description"?); license: required; sourceURL: required; tags: required`},
		{name: "not YAML", in: "image: [\n", err: "cannot parse: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := image.ParseMetadata([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
