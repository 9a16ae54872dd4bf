package kptfile

import (
	"cmp"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fieldOrder is the order of a Kptfile's top-level fields as kpt writes
// them.
var fieldOrder = []string{"apiVersion", "kind", "metadata", "upstream", "upstreamLock", "info", "pipeline", "inventory", "status"}

// kptfileFields are the field orders of the Kptfile's nested mappings as kpt
// writes them (the field order of its Go types), by path from the root, "[]"
// standing for the elements of a list. kptfileMaps are the mappings kpt
// writes as Go maps: keys sorted.
var (
	kptfileFunction = []string{"image", "exec", "configPath", "configMap", "name", "selectors", "exclude"}
	kptfileSelector = []string{"apiVersion", "kind", "name", "namespace", "labels", "annotations"}
	kptfileFields   = map[string][]string{
		"":                                  fieldOrder,
		"metadata":                          {"name", "namespace", "labels", "annotations"},
		"upstream":                          {"type", "git", "updateStrategy"},
		"upstream.git":                      {"repo", "directory", "ref"},
		"upstreamLock":                      {"type", "git"},
		"upstreamLock.git":                  {"repo", "directory", "ref", "commit"},
		"info":                              {"site", "emails", "license", "licenseFile", "description", "keywords", "man", "readinessGates"},
		"info.readinessGates[]":             {"conditionType"},
		"pipeline":                          {"mutators", "validators"},
		"pipeline.mutators[]":               kptfileFunction,
		"pipeline.validators[]":             kptfileFunction,
		"inventory":                         {"namespace", "name", "inventoryID", "labels", "annotations"},
		"status":                            {"conditions"},
		"status.conditions[]":               {"type", "status", "reason", "message"},
		"pipeline.mutators[].selectors[]":   kptfileSelector,
		"pipeline.mutators[].exclude[]":     kptfileSelector,
		"pipeline.validators[].selectors[]": kptfileSelector,
		"pipeline.validators[].exclude[]":   kptfileSelector,
	}
	kptfileMaps = map[string]bool{}
)

func init() {
	for p, fields := range kptfileFields {
		for _, f := range []string{"labels", "annotations", "configMap"} {
			if slices.Contains(fields, f) {
				kptfileMaps[join(p, f)] = true
			}
		}
	}
}

// PlaceField moves a top-level field of a Kptfile that was just created
// (its key has no position in the input) before the first field kpt writes
// after it; fields read from the input keep their place.
func PlaceField(kf *yaml.Node, field string) {
	placeNew(kf, "", func(k *yaml.Node) bool { return k.Value == field && k.Line == 0 })
}

// Order moves the keys of a Kptfile's mappings, at every depth, that
// isNew reports (keys an edit or a merge added, which have no place in the
// input) to where kpt writes them: a struct's fields in kpt's field order
// (before the first field kpt writes after them), a map's keys (labels,
// annotations, configMap) in sorted order. New keys kpt does not know go
// last; keys from the input keep their place.
func Order(kf *yaml.Node, isNew func(key *yaml.Node) bool) {
	orderAt(kf, "", isNew)
}

func orderAt(n *yaml.Node, at string, isNew func(*yaml.Node) bool) {
	switch {
	case n == nil:
	case n.Kind == yaml.MappingNode:
		placeNew(n, at, isNew)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if p := join(at, n.Content[i].Value); kptfileFields[p] != nil || kptfileMaps[p] || kptfileFields[p+"[]"] != nil {
				orderAt(n.Content[i+1], p, isNew)
			}
		}
	case n.Kind == yaml.SequenceNode:
		for _, e := range n.Content {
			orderAt(e, at+"[]", isNew)
		}
	}
}

// placeNew moves the new keys of the mapping m at path at to their places.
func placeNew(m *yaml.Node, at string, isNew func(*yaml.Node) bool) {
	order, sorted := kptfileFields[at], kptfileMaps[at]
	if m.Kind != yaml.MappingNode || (order == nil && !sorted) {
		return
	}
	rank := func(k string) int { return slices.Index(order, k) }
	compare := func(a, b string) int { return cmp.Compare(rank(a), rank(b)) }
	known := func(k string) bool { return rank(k) >= 0 }
	if sorted {
		compare, known = strings.Compare, func(string) bool { return true }
	}
	var kept, added, unknown []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		pair := m.Content[i : i+2 : i+2]
		switch {
		case !isNew(pair[0]):
			kept = append(kept, pair...)
		case known(pair[0].Value):
			added = append(added, pair...)
		default:
			unknown = append(unknown, pair...)
		}
	}
	if len(added) == 0 {
		return
	}
	pairs := make([][]*yaml.Node, 0, len(added)/2)
	for i := 0; i < len(added); i += 2 {
		pairs = append(pairs, added[i:i+2])
	}
	slices.SortStableFunc(pairs, func(a, b []*yaml.Node) int { return compare(a[0].Value, b[0].Value) })
	for _, p := range pairs {
		at := len(kept)
		for i := 0; i < len(kept); i += 2 {
			if k := kept[i].Value; known(k) && compare(k, p[0].Value) > 0 {
				at = i
				break
			}
		}
		kept = slices.Insert(kept, at, p...)
	}
	m.Content = append(kept, unknown...)
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}
