package main

import (
	"errors"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

// fleetRenderer renders each variant's package with kptkit's pipeline
// runtime.
type fleetRenderer struct{}

func newFleetRenderer() (fleet.Renderer, error) { return fleetRenderer{}, nil }

// Render is wired to pkg/render when it lands (issue 12).
func (fleetRenderer) Render(kptpkg.Files, []*yaml.RNode, []*yaml.RNode) (kptpkg.Files, result.List, error) {
	return nil, nil, errors.New("the pipeline runtime is not built yet: use --render=false")
}
