package image

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/decode"
)

// Metadata is a function's metadata.yaml, in the kpt function catalog's
// format (functions/go/<name>/metadata.yaml there): what the catalog's
// site lists, and what an image's OCI labels say.
type Metadata struct {
	// Image is the image's name without a tag (ghcr.io/kptkit/<function>).
	Image       string `yaml:"image"`
	Description string `yaml:"description"`
	// Tags say what kind of function it is (mutator, validator) and what
	// it is about (porch, package-variant, ...).
	Tags []string `yaml:"tags"`
	// SourceURL is the function's folder in the repository.
	SourceURL string `yaml:"sourceURL"`
	// ExamplePackageURLs are the example packages that run it.
	ExamplePackageURLs []string `yaml:"examplePackageURLs"`
	Emails             []string `yaml:"emails,omitempty"`
	// License is an SPDX expression.
	License string `yaml:"license"`
	Hidden  bool   `yaml:"hidden,omitempty"`
}

// ParseMetadata reads a metadata.yaml: unknown fields and missing required
// ones (image, description, tags, sourceURL, license) are errors, all named.
func ParseMetadata(data []byte) (Metadata, error) {
	var m Metadata
	n, err := yaml.Parse(string(data))
	if err != nil {
		return m, fmt.Errorf("cannot parse: %w", err)
	}
	var msgs []string
	for _, e := range decode.Into(n.YNode(), &m, decode.Options{KnownFields: true}, "") {
		msgs = append(msgs, e.Error())
	}
	for field, empty := range map[string]bool{
		"image": m.Image == "", "description": m.Description == "", "tags": len(m.Tags) == 0,
		"sourceURL": m.SourceURL == "", "license": m.License == "",
	} {
		if empty {
			msgs = append(msgs, field+": required")
		}
	}
	if len(msgs) > 0 {
		slices.Sort(msgs)
		return m, errors.New(strings.Join(msgs, "; "))
	}
	return m, nil
}
