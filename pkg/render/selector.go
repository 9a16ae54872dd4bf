package render

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Selector picks items for a pipeline entry, as a Kptfile's `selectors` and
// `exclude` entries do: every field given must match (labels and
// annotations: each one given must be on the item with that value).
type Selector struct {
	APIVersion  string            `yaml:"apiVersion"`
	Kind        string            `yaml:"kind"`
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// IsEmpty reports whether the selector sets nothing (kpt ignores an empty
// exclusion; an empty selector matches every item).
func (s Selector) IsEmpty() bool {
	return s.APIVersion == "" && s.Kind == "" && s.Name == "" && s.Namespace == "" &&
		len(s.Labels) == 0 && len(s.Annotations) == 0
}

// Match reports whether the item matches the selector, as kpt matches.
func (s Selector) Match(n *yaml.RNode) bool {
	if (s.Name != "" && s.Name != n.GetName()) ||
		(s.Namespace != "" && s.Namespace != n.GetNamespace()) ||
		(s.Kind != "" && s.Kind != n.GetKind()) ||
		(s.APIVersion != "" && s.APIVersion != n.GetApiVersion()) {
		return false
	}
	return subset(s.Labels, n.GetLabels) && subset(s.Annotations, n.GetAnnotations)
}

func subset(want map[string]string, got func(...string) map[string]string) bool {
	if len(want) == 0 {
		return true
	}
	have := got()
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
}

// Select returns the items a pipeline entry runs on, in order: those that
// match any selector (all when there is none) and no non-empty exclusion.
// An item matching several selectors is given once (kpt gives it once per
// selector).
func Select(items []*yaml.RNode, selectors, exclusions []Selector) []*yaml.RNode {
	var out []*yaml.RNode
	for _, n := range items {
		if matchAny(n, selectors, true) && !matchAny(n, exclusions, false) {
			out = append(out, n)
		}
	}
	return out
}

// matchAny reports whether n matches one of the selectors; with none,
// whether none is all.
func matchAny(n *yaml.RNode, sels []Selector, noneIsAll bool) bool {
	if len(sels) == 0 {
		return noneIsAll
	}
	for _, s := range sels {
		if (noneIsAll || !s.IsEmpty()) && s.Match(n) {
			return true
		}
	}
	return false
}

// resourceIDAnnotation identifies items while a function with selectors
// runs, so that its output can be merged back (kpt's kpt-resource-id).
const resourceIDAnnotation = "internal.config.k8s.io/kpt-resource-id"

// setResourceIDs numbers every item as kpt does before a selected run.
func setResourceIDs(items []*yaml.RNode) error {
	for i, n := range items {
		if err := n.PipeE(yaml.SetAnnotation(resourceIDAnnotation, strconv.Itoa(i))); err != nil {
			return err
		}
	}
	return nil
}

// clearResourceIDs removes the numbers again.
func clearResourceIDs(items []*yaml.RNode) error {
	for _, n := range items {
		if err := n.PipeE(yaml.ClearAnnotation(resourceIDAnnotation)); err != nil {
			return err
		}
	}
	return nil
}

// merge puts a selected run's output back among all the items, as kpt
// does: items not selected stay in place, selected ones are replaced by
// their output (or dropped when the function deleted them), and items the
// function made (without an id) go last.
func merge(output, selected, all []*yaml.RNode) []*yaml.RNode {
	byID := func(nodes []*yaml.RNode) map[string]*yaml.RNode {
		m := make(map[string]*yaml.RNode, len(nodes))
		for _, n := range nodes {
			id := n.GetAnnotations(resourceIDAnnotation)[resourceIDAnnotation]
			if _, seen := m[id]; !seen {
				m[id] = n
			}
		}
		return m
	}
	out, sel := byID(output), byID(selected)
	var merged []*yaml.RNode
	for _, n := range all {
		id := n.GetAnnotations(resourceIDAnnotation)[resourceIDAnnotation]
		if _, ok := sel[id]; !ok {
			merged = append(merged, n)
		} else if o, ok := out[id]; ok {
			merged = append(merged, o)
		}
	}
	for _, n := range output {
		if n.GetAnnotations(resourceIDAnnotation)[resourceIDAnnotation] == "" {
			merged = append(merged, n)
		}
	}
	return merged
}
