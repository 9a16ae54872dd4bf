package kptpkg

import (
	"io/fs"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Emitted reports whether Encode writes items with the emitter.
func Emitted(items []*yaml.RNode) bool {
	_, ok := emitFile(items)
	return ok
}

// ReadDepth is Read with another depth bound (to measure deep trees).
func ReadDepth(fsys fs.FS, maxDepth int) (Files, error) { return read(fsys, maxDepth) }

// Matchable is the .krmignore the matcher is given.
var Matchable = matchable
