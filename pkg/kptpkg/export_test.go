package kptpkg

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Emitted reports whether Encode writes items with the emitter.
func Emitted(items []*yaml.RNode) bool {
	_, ok := emitFile(items)
	return ok
}
