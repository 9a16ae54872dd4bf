// Package image assembles a KRM function's container image without Docker:
// a static binary (bytes) and its platform go in; an OCI image whose
// entrypoint is that binary comes out (or, for a command such as kptkit
// function-runner, the binary with its arguments), and several platforms'
// images come out as one index. The same inputs always give the same
// digests.
package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// EntryPoint is where the function's binary sits in the image.
const EntryPoint = "/usr/local/bin/function"

// nonroot is the user the function runs as (distroless' nonroot).
const nonroot = "65532:65532"

// Spec describes one function image for one platform.
type Spec struct {
	// Function is the function's name (the image title).
	Function string
	// Binary is the static executable.
	Binary []byte
	// Platform is what Binary was built for.
	Platform v1.Platform
	// Created is the image's creation time; a fixed one keeps digests stable.
	Created time.Time
	// Version, Revision and Source (the repository's URL) fill the OCI
	// labels, with the function's Metadata.
	Version  string
	Revision string
	Source   string
	Metadata Metadata
	// Command makes the image a command's instead of a function's: the
	// binary sits at Command[0], and Command is the entrypoint (e.g.
	// /usr/local/bin/kptkit function-runner). Ports are the ports it
	// exposes ("9445/tcp").
	Command []string
	Ports   []string
}

// entrypoint is where the binary sits and the image's entrypoint.
func (s Spec) entrypoint() (string, []string) {
	if len(s.Command) > 0 {
		return s.Command[0], s.Command
	}
	return EntryPoint, []string{EntryPoint}
}

// Build returns the image: one layer holding the binary, run as nonroot.
func Build(s Spec) (v1.Image, error) {
	if s.Function == "" || len(s.Binary) == 0 {
		return nil, fmt.Errorf("cannot build an image without a function name and a binary")
	}
	if len(s.Command) > 0 && (!path.IsAbs(s.Command[0]) || path.Clean(s.Command[0]) != s.Command[0] || s.Command[0] == "/") {
		return nil, fmt.Errorf("cannot build the image of %s: its command's binary %q is not a clean absolute path", s.Function, s.Command[0])
	}
	bin, entrypoint := s.entrypoint()
	layer, err := binaryLayer(s.Binary, bin, s.Created)
	if err != nil {
		return nil, fmt.Errorf("cannot build the layer of %s: %w", s.Function, err)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, fmt.Errorf("cannot add the layer of %s: %w", s.Function, err)
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("cannot read the config of %s: %w", s.Function, err)
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: s.Created}
	cf.OS, cf.Architecture, cf.Variant = s.Platform.OS, s.Platform.Architecture, s.Platform.Variant
	cf.Config = v1.Config{
		Entrypoint: entrypoint,
		User:       nonroot,
		Labels:     labels(s),
	}
	for _, p := range s.Ports {
		if cf.Config.ExposedPorts == nil {
			cf.Config.ExposedPorts = map[string]struct{}{}
		}
		cf.Config.ExposedPorts[p] = struct{}{}
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("cannot set the config of %s: %w", s.Function, err)
	}
	return img, nil
}

// Index returns the images (one per platform) as a multi-platform index.
func Index(imgs ...v1.Image) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, img := range imgs {
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("cannot read an image config: %w", err)
		}
		p := cf.Platform()
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: p}})
	}
	return idx, nil
}

// labels are the OCI annotations' names for what the image is: its
// metadata.yaml (description, the function's page, license), the
// repository, version and revision it was built from; and, for a
// function, kpt's dev.kpt.fn.exec, the binary's path.
func labels(s Spec) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       s.Function,
		"org.opencontainers.image.description": "kptkit KRM function " + s.Function,
	}
	if len(s.Command) == 0 {
		l["dev.kpt.fn.exec"] = EntryPoint
	}
	m := s.Metadata
	for k, v := range map[string]string{
		"description":   m.Description,
		"url":           m.SourceURL,
		"documentation": m.SourceURL,
		"licenses":      m.License,
		"version":       s.Version,
		"revision":      s.Revision,
		"source":        s.Source,
	} {
		if v != "" {
			l["org.opencontainers.image."+k] = v
		}
	}
	return l
}

// binaryLayer is a gzip layer of one tar file: the binary at the absolute
// path at, with its directories, fixed times and owner, so that it
// is reproducible.
func binaryLayer(bin []byte, at string, created time.Time) (v1.Layer, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	name := strings.TrimPrefix(at, "/")
	for i, c := range name {
		if c != '/' {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name[:i+1], Mode: 0o755, ModTime: created}); err != nil {
			return nil, err
		}
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: int64(len(bin)), ModTime: created}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := b.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
