package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kptkit/kptkit/internal/version"
)

func fakeBinaries(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, fn := range functionNames() {
		if err := os.WriteFile(filepath.Join(dir, fn), []byte("binary of "+fn), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func functionNames() []string {
	var names []string
	for _, f := range registry {
		names = append(names, f.Name)
	}
	return names
}

func runImagesCmd(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"kptkit", "images", "build"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("kptkit images build %v: exit %d\n%s", args, code, errb.String())
	}
	return out.String()
}

func TestImagesPushToRegistry(t *testing.T) {
	srv := httptest.NewServer(ggcrregistry.New())
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	out := runImagesCmd(t, "--bin", fakeBinaries(t), "--push", u.Host+"/kptkit", "--tag", "v1", "--insecure", "set-package-context")
	if !strings.Contains(out, "set-package-context:v1@sha256:") {
		t.Errorf("output does not name the pushed image:\n%s", out)
	}
	ref, err := name.ParseReference(u.Host+"/kptkit/set-package-context:v1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(ref, remote.WithPlatform(v1.Platform{OS: "linux", Architecture: "amd64"}))
	if err != nil {
		t.Fatalf("pulling the pushed image: %v", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cf.Config.Entrypoint, " "); got != "/usr/local/bin/function" {
		t.Errorf("entrypoint %q", got)
	}
	wantLabels := map[string]string{ // from functions/set-package-context/metadata.yaml
		"org.opencontainers.image.title":         "set-package-context",
		"org.opencontainers.image.description":   "Sets and removes keys of a kpt package's context (package-context.yaml), as Porch does for a PackageVariant's spec.packageContext.",
		"org.opencontainers.image.url":           "https://github.com/kptkit/kptkit/tree/main/functions/set-package-context",
		"org.opencontainers.image.documentation": "https://github.com/kptkit/kptkit/tree/main/functions/set-package-context",
		"org.opencontainers.image.licenses":      "Apache-2.0",
		"org.opencontainers.image.source":        "https://github.com/kptkit/kptkit",
		"org.opencontainers.image.version":       "v1",
		"dev.kpt.fn.exec":                        "/usr/local/bin/function",
	}
	if rev := version.Get().Revision; rev != "" {
		wantLabels["org.opencontainers.image.revision"] = rev
	}
	if d := cmp.Diff(wantLabels, cf.Config.Labels); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
	if !bytes.Contains(readAll(t, img), []byte("binary of set-package-context")) {
		t.Error("the image does not hold the binary")
	}
}

func TestImagesLayoutIsIdempotent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "images")
	bin := fakeBinaries(t)
	first := runImagesCmd(t, "--bin", bin, "--layout", dir, "--tag", "v1")
	second := runImagesCmd(t, "--bin", bin, "--layout", dir, "--tag", "v1")
	if first != second {
		t.Errorf("two builds differ:\n%s\n%s", first, second)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, d := range m.Manifests {
		refs = append(refs, d.Annotations["org.opencontainers.image.ref.name"])
	}
	want := []string{}
	for _, fn := range functionNames() {
		want = append(want, fn+":v1")
	}
	if strings.Join(refs, ",") != strings.Join(want, ",") {
		b, _ := json.MarshalIndent(m, "", " ")
		t.Errorf("layout holds %v, want %v\n%s", refs, want, b)
	}
}

func TestImagesGoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a real binary")
	}
	dir := filepath.Join(t.TempDir(), "images")
	runImagesCmd(t, "--source", "../..", "--layout", dir, "--tag", "test", "prepend-pipeline")
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := idx.IndexManifest()
	inner, err := idx.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, _ := inner.IndexManifest()
	img, err := inner.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	if content := readAll(t, img); !bytes.Contains(content, []byte("\x7fELF")) {
		t.Error("the image does not hold an ELF binary")
	}
}

func TestImagesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"images"},
		{"images", "build", "--platform", "linux", "--bin", "x"},
		{"images", "build", "--bin", "x", "no-such-function"},
		{"images", "build", "--platform", "linux/amd64,linux/arm64", "--bin", "x"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"kptkit"}, args...), strings.NewReader(""), &out, &errb); code == 0 {
			t.Errorf("kptkit %v succeeded", args)
		}
	}
}

func readAll(t *testing.T, img v1.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := b.ReadFrom(mutate.Extract(img)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImagesFunctionRunner: kptkit images build function-runner makes the
// image of kptkit function-runner: kptkit's binary, the command as its
// entrypoint (the Deployment's args are flags only), port 9445.
func TestImagesFunctionRunner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "images")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "kptkit"), []byte("binary of kptkit"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := runImagesCmd(t, "--bin", bin, "--layout", dir, "--tag", "v1", "function-runner")
	if !strings.HasPrefix(out, "function-runner:v1@sha256:") {
		t.Errorf("output does not name the image:\n%s", out)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := idx.IndexManifest()
	inner, err := idx.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, _ := inner.IndexManifest()
	img, err := inner.Image(im.Manifests[0].Digest)
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
			"org.opencontainers.image.title":         "function-runner",
			"org.opencontainers.image.description":   "kptkit function-runner: Porch's function runner API (FunctionEvaluator, gRPC) serving kptkit's functions and the built-in catalog functions in one process",
			"org.opencontainers.image.url":           "https://github.com/kptkit/kptkit/tree/main/docs/function-runner.md",
			"org.opencontainers.image.documentation": "https://github.com/kptkit/kptkit/tree/main/docs/function-runner.md",
			"org.opencontainers.image.licenses":      "Apache-2.0",
			"org.opencontainers.image.source":        "https://github.com/kptkit/kptkit",
			"org.opencontainers.image.version":       "v1",
		},
	}
	if rev := version.Get().Revision; rev != "" {
		want.Labels["org.opencontainers.image.revision"] = rev
	}
	if d := cmp.Diff(want, cf.Config); d != "" {
		t.Errorf("config (-want +got):\n%s", d)
	}
	if !bytes.Contains(readAll(t, img), []byte("binary of kptkit")) {
		t.Error("the image does not hold kptkit's binary")
	}
}
