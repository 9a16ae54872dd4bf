package kptpkg

import (
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// KptfileOrder is the order of a Kptfile's top-level fields as kpt writes
// them.
var KptfileOrder = []string{"apiVersion", "kind", "metadata", "upstream", "upstreamLock", "info", "pipeline", "inventory", "status"}

// PlaceField moves a top-level field of a Kptfile that was just created
// (its key has no position in the input) before the first field kpt writes
// after it; fields read from the input keep their place.
func PlaceField(kf *yaml.Node, field string) {
	rank := slices.Index(KptfileOrder, field)
	c := kf.Content
	at := -1
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == field {
			at = i
		}
	}
	if rank < 0 || at < 0 || c[at].Line != 0 {
		return
	}
	for i := 0; i < at; i += 2 {
		if r := slices.Index(KptfileOrder, c[i].Value); r > rank {
			moved := []*yaml.Node{c[at], c[at+1]}
			kf.Content = slices.Concat(c[:i:i], moved, c[i:at], c[at+2:])
			return
		}
	}
}
