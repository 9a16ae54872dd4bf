package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/internal/version"
	"github.com/kptkit/kptkit/pkg/image"
)

var imagesCommand = &command{
	name:    "images",
	summary: "build the functions' OCI images without Docker (images build --help)",
	subs: []*command{
		{name: "build", synopsis: "[flags] [FUNCTION... | function-runner]",
			help: `Builds one OCI image per function (all of them when none is named) without
Docker: a static binary on an empty base, run as nonroot, with fixed
timestamps (SOURCE_DATE_EPOCH, else 1970) so that digests are reproducible.
The name function-runner builds kptkit itself (from ./cmd/kptkit) as the
image of kptkit function-runner: entrypoint
/usr/local/bin/kptkit function-runner, port 9445.
Several platforms make one multi-platform index per function. Each image
carries the function's metadata.yaml as OCI labels
(org.opencontainers.image.title, description, source, licenses, version,
revision, documentation).

The images go to an OCI image layout folder (--layout, default out/images)
and/or a registry (--push PREFIX: PREFIX/<function>:<tag>). From a layout,
copy them on with any OCI tool, e.g.
  skopeo copy oci:out/images:set-package-context:TAG docker://REGISTRY/set-package-context:TAG
  skopeo copy oci:out/images:set-package-context:TAG docker-daemon:set-package-context:TAG
then name them in kpt: kpt fn eval PKG --image REGISTRY/set-package-context:TAG.`,
			run: imagesBuild},
	},
}

type imagesFlags struct {
	platforms, tag, layoutDir, push, binDir, source string
	insecure                                        bool
	revision                                        string // of the source tree, stamped and labelled
}

func imagesBuild(c *call, args []string) error {
	var f imagesFlags
	fs := c.flags()
	fs.StringVar(&f.platforms, "platform", "linux/amd64", "comma-separated `PLATFORMS` to build for")
	fs.StringVar(&f.tag, "tag", version.Get().Tag(), "the images' `TAG` (default: the version of this build)")
	fs.StringVar(&f.layoutDir, "layout", "", "write the images to this OCI image layout `FOLDER` (default out/images unless --push)")
	fs.StringVar(&f.push, "push", "", "push the images as `PREFIX`/<function>:<tag>, e.g. ghcr.io/me/kptkit")
	fs.StringVar(&f.binDir, "bin", "", "use prebuilt static binaries from this `FOLDER` (one platform) instead of go build")
	fs.StringVar(&f.source, "source", ".", "the kptkit source tree, `FOLDER`, to build the binaries from")
	fs.BoolVar(&f.insecure, "insecure", false, "allow pushing to a plain-HTTP registry")
	if err := c.parse(fs, args, -1); err != nil {
		return err
	}
	if f.layoutDir == "" && f.push == "" {
		f.layoutDir = filepath.Join("out", "images")
	}
	f.revision = sourceRevision(f)
	return buildImages(f, fs.Args(), c.stdout)
}

// sourceRevision is the git commit of the tree the binaries are built
// from; for prebuilt binaries (--bin) or outside git, this build's.
func sourceRevision(f imagesFlags) string {
	if f.binDir == "" {
		if out, err := exec.Command("git", "-C", f.source, "rev-parse", "HEAD").Output(); err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return version.Get().Revision
}

func buildImages(f imagesFlags, names []string, stdout io.Writer) error {
	platforms, err := parsePlatforms(f.platforms)
	if err != nil {
		return err
	}
	if f.binDir != "" && len(platforms) > 1 {
		return errors.New("--bin holds binaries of one platform: give one --platform")
	}
	if len(names) == 0 {
		for _, fn := range registry {
			names = append(names, fn.Name)
		}
	}
	for _, n := range names {
		if _, ok := lookup(n); !ok && n != functionRunnerImage {
			return fmt.Errorf("unknown function %q", n)
		}
	}
	created, err := sourceDate()
	if err != nil {
		return err
	}
	var out layout.Path
	if f.layoutDir != "" {
		if out, err = openLayout(f.layoutDir); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "kptkit-images-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, fn := range names {
		spec, err := imageSpec(fn)
		if err != nil {
			return err
		}
		spec.Created, spec.Version, spec.Revision = created, f.tag, f.revision
		var imgs []v1.Image
		for _, p := range platforms {
			if spec.Binary, err = binary(f, tmp, fn, p); err != nil {
				return err
			}
			spec.Platform = p
			img, err := image.Build(spec)
			if err != nil {
				return err
			}
			imgs = append(imgs, img)
		}
		idx, err := image.Index(imgs...)
		if err != nil {
			return err
		}
		if err := publish(f, out, fn, idx, stdout); err != nil {
			return err
		}
	}
	return nil
}

// functionRunnerImage is the name of kptkit function-runner's image.
const functionRunnerImage = "function-runner"

// imageSpec is what an image says beyond its binary, platform and
// version: a function's metadata.yaml, or kptkit function-runner's
// command, port and description.
func imageSpec(name string) (image.Spec, error) {
	s := image.Spec{Function: name, Source: "https://github.com/kptkit/kptkit"}
	if name == functionRunnerImage {
		s.Command, s.Ports = []string{"/usr/local/bin/kptkit", "function-runner"}, []string{"9445/tcp"}
		s.Metadata = image.Metadata{
			Description: "kptkit function-runner: Porch's function runner API (FunctionEvaluator, gRPC) serving kptkit's functions and the built-in catalog functions in one process",
			SourceURL:   "https://github.com/kptkit/kptkit/tree/main/docs/function-runner.md",
			License:     "Apache-2.0",
		}
		return s, nil
	}
	meta, err := image.ParseMetadata(functions.Metadata(name))
	if err != nil {
		return s, fmt.Errorf("functions/%s/metadata.yaml: %w", name, err)
	}
	s.Metadata = meta
	return s, nil
}

// refName is the OCI annotation that names an image in a layout.
const refName = "org.opencontainers.image.ref.name"

// publish writes the index to the layout and/or pushes it.
func publish(f imagesFlags, out layout.Path, fn string, idx v1.ImageIndex, stdout io.Writer) error {
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	ref := fn + ":" + f.tag
	if f.layoutDir != "" {
		// Replace what an earlier build wrote under the same name.
		if err := out.ReplaceIndex(idx, match.Annotation(refName, ref), layout.WithAnnotations(map[string]string{refName: ref})); err != nil {
			return fmt.Errorf("cannot write %s to %s: %w", ref, f.layoutDir, err)
		}
		fmt.Fprintf(stdout, "%s@%s -> %s\n", ref, digest, f.layoutDir)
	}
	if f.push != "" {
		var opts []name.Option
		if f.insecure {
			opts = append(opts, name.Insecure)
		}
		tag, err := name.NewTag(strings.TrimSuffix(f.push, "/")+"/"+ref, opts...)
		if err != nil {
			return fmt.Errorf("bad --push %q: %w", f.push, err)
		}
		if err := remote.WriteIndex(tag, idx); err != nil {
			return fmt.Errorf("cannot push %s: %w", tag, err)
		}
		fmt.Fprintf(stdout, "%s@%s -> %s\n", ref, digest, tag)
	}
	return nil
}

// binary reads a prebuilt binary (kptkit for the function runner), or
// builds one with go build.
func binary(f imagesFlags, tmp, fn string, p v1.Platform) ([]byte, error) {
	file, pkg := fn, "./functions/"+fn
	if fn == functionRunnerImage {
		file, pkg = "kptkit", "./cmd/kptkit"
	}
	if f.binDir != "" {
		return os.ReadFile(filepath.Join(f.binDir, file))
	}
	out := filepath.Join(tmp, fn+"-"+p.OS+"-"+p.Architecture)
	ldflags := "-s -w -X github.com/kptkit/kptkit/internal/version.version=" + f.tag +
		" -X github.com/kptkit/kptkit/internal/version.revision=" + f.revision
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, pkg)
	cmd.Dir = f.source
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture)
	if p.Variant != "" && p.Architecture == "arm" {
		cmd.Env = append(cmd.Env, "GOARM="+strings.TrimPrefix(p.Variant, "v"))
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cannot build %s for %s (run from the kptkit source tree, or give --source or --bin): %v\n%s", fn, p, err, b)
	}
	return os.ReadFile(out)
}

func parsePlatforms(s string) ([]v1.Platform, error) {
	var out []v1.Platform
	for _, part := range strings.Split(s, ",") {
		p, err := v1.ParsePlatform(strings.TrimSpace(part))
		if err != nil || p.OS == "" || p.Architecture == "" {
			return nil, fmt.Errorf("bad platform %q: want os/arch[/variant], e.g. linux/amd64", part)
		}
		if slices.ContainsFunc(out, func(q v1.Platform) bool { return q.Equals(*p) }) {
			continue
		}
		out = append(out, *p)
	}
	return out, nil
}

// sourceDate is the images' creation time: SOURCE_DATE_EPOCH, else 1970.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// openLayout opens an OCI layout folder, creating it when missing.
func openLayout(dir string) (layout.Path, error) {
	if p, err := layout.FromPath(dir); err == nil {
		return p, nil
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", fmt.Errorf("cannot create the image layout %s: %w", dir, err)
	}
	return p, nil
}
