package render

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// restore does to a function's output what kpt's function filter does: each
// output item that carries the id of an input item gets that input's
// comments (where it has none) and field order back, and loses the id. The
// ids are numbered from 1 in before's order; a nil in before is an item
// known to be unchanged.
//
// kyaml's comment copier walks every item with OpenAPI schemas and costs a
// millisecond an item; it is called only for items where it could change
// something (settled says when it cannot).
func restore(output, before []*yaml.RNode) error {
	for _, n := range output {
		id, ok := idOf(n)
		if !ok {
			continue
		}
		i, err := strconv.Atoi(id)
		if err != nil || i < 1 || i > len(before) {
			continue
		}
		if from := before[i-1]; from != nil && !settled(from.YNode(), n.YNode()) {
			if err := comments.CopyComments(from, n); err != nil {
				return err
			}
			if err := order.SyncOrder(from, n); err != nil {
				return err
			}
		}
		if err := clearIDs(n); err != nil {
			return err
		}
	}
	return nil
}

// mergeKeys are the fields lists of maps are merged by (kyaml infers
// "name"; Kubernetes' schemas name the others): elements at the same place
// with different values for one may be paired differently.
var mergeKeys = []string{"name", "containerPort", "mountPath", "devicePath", "ip", "port", "protocol", "topologyKey", "type", "key"}

// settled reports whether kyaml's comments.CopyComments and
// order.SyncOrder would leave to as it is: every comment of from is still
// there on the node they would pair it with, maps keep from's key order
// (new keys after), lists keep their length and elements in place, no
// folded scalar (which the copier turns double-quoted), no first key of a
// list element with a head comment (which SyncOrder lifts to the element).
// False means: not sure.
func settled(from, to *yaml.Node) bool {
	if from == nil || to == nil {
		return from == to
	}
	if from.Kind == yaml.DocumentNode && to.Kind == yaml.DocumentNode && len(from.Content) == 1 && len(to.Content) == 1 {
		return settled(from.Content[0], to.Content[0])
	}
	if from.Kind != to.Kind || from.Alias != nil || to.Alias != nil || !keptComments(from, to) {
		return false
	}
	switch to.Kind {
	case yaml.ScalarNode:
		return to.Style&yaml.FoldedStyle == 0
	case yaml.MappingNode:
		return settledMap(from, to)
	case yaml.SequenceNode:
		if len(from.Content) != len(to.Content) {
			return false
		}
		for i, t := range to.Content {
			f := from.Content[i]
			if t.Kind == yaml.MappingNode && (len(t.Content) > 0 && t.Content[0].HeadComment != "" || !sameKeys(f, t)) {
				return false
			}
			// lists of scalars may be paired by value
			if t.Kind == yaml.ScalarNode && f.Value != t.Value && (f.HeadComment != "" || f.LineComment != "" || f.FootComment != "") {
				return false
			}
			if !settled(f, t) {
				return false
			}
		}
		return true
	}
	return false
}

// settledMap checks a map: keys of from keep their order in to, keys only
// in to come last, and every shared key and value is settled; values only
// in to hold no folded scalar.
func settledMap(from, to *yaml.Node) bool {
	if len(from.Content) > 64 || len(to.Content) > 64 {
		return settledBigMap(from, to)
	}
	last, extra := -1, false
	for i := 0; i+1 < len(to.Content); i += 2 {
		k, v := to.Content[i], to.Content[i+1]
		j := -1
		for f := 0; f+1 < len(from.Content); f += 2 {
			if from.Content[f].Value == k.Value {
				if j >= 0 {
					return false // a key twice
				}
				j = f
			}
		}
		for d := i + 2; d+1 < len(to.Content); d += 2 {
			if to.Content[d].Value == k.Value {
				return false
			}
		}
		if !settledPair(from, j, k, v, &last, &extra) {
			return false
		}
	}
	return true
}

// settledBigMap is settledMap with an index of from's keys.
func settledBigMap(from, to *yaml.Node) bool {
	idx := make(map[string]int, len(from.Content)/2)
	for i := 0; i+1 < len(from.Content); i += 2 {
		if _, dup := idx[from.Content[i].Value]; dup {
			return false
		}
		idx[from.Content[i].Value] = i
	}
	last, extra := -1, false
	seen := make(map[string]bool, len(to.Content)/2)
	for i := 0; i+1 < len(to.Content); i += 2 {
		k, v := to.Content[i], to.Content[i+1]
		if seen[k.Value] {
			return false
		}
		seen[k.Value] = true
		j, ok := idx[k.Value]
		if !ok {
			j = -1
		}
		if !settledPair(from, j, k, v, &last, &extra) {
			return false
		}
	}
	return true
}

// settledPair checks one key and value of to against from's at j (-1:
// from has no such key), in order after *last.
func settledPair(from *yaml.Node, j int, k, v *yaml.Node, last *int, extra *bool) bool {
	if j < 0 {
		*extra = true
		return unfolded(k) && unfolded(v)
	}
	if *extra || j < *last || !settled(from.Content[j], k) || !settled(from.Content[j+1], v) {
		return false
	}
	*last = j
	return true
}

// keptComments reports whether to has every comment from has (the copier
// fills only empty ones).
func keptComments(from, to *yaml.Node) bool {
	return (from.HeadComment == "" || to.HeadComment != "") &&
		(from.LineComment == "" || to.LineComment != "") &&
		(from.FootComment == "" || to.FootComment != "")
}

// sameKeys reports whether two list elements agree on every merge key
// either has.
func sameKeys(a, b *yaml.Node) bool {
	if a.Kind != yaml.MappingNode {
		return false
	}
	for _, k := range mergeKeys {
		av, bv := fieldpath.Field(a, k), fieldpath.Field(b, k)
		if (av == nil) != (bv == nil) || av != nil && av.Value != bv.Value {
			return false
		}
	}
	return true
}

// unfolded reports whether no scalar below n is folded.
func unfolded(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode && n.Style&yaml.FoldedStyle != 0 {
		return false
	}
	for _, c := range n.Content {
		if !unfolded(c) {
			return false
		}
	}
	return true
}
