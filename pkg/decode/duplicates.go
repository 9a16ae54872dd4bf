package decode

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Duplicate is a key written a second time in one mapping. yaml.v3 refuses
// it when it decodes into a Go value; kyaml's reader (and so kpt) keeps the
// first silently, and whoever reads the mapping next may take either.
type Duplicate struct {
	Path  string // the key's field path: `metadata.name`, `spec.ports[0].name`
	Key   string
	Line  int // where the key is written again
	First int // where it was written first
}

// Error says it in yaml.v3's words:
// `line 5: mapping key "name" already defined at line 3`.
func (d Duplicate) Error() string {
	return fmt.Sprintf("line %d: mapping key %q already defined at line %d", d.Line, d.Key, d.First)
}

// smallMapping is the most keys a mapping has for Duplicates to compare
// its keys pairwise; a larger one gets a map.
const smallMapping = 8

// Duplicates returns the keys written twice in a mapping of the tree at n,
// each repetition once (against the first), sorted by line; paths start at
// base ("" for the top). Two keys are the same as yaml.v3 has it: scalars
// (or aliases) of the same value. Aliases are not followed: a mapping is
// checked where it is written. The work is linear in the tree's size.
func Duplicates(n *yaml.Node, base string) []Duplicate {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	w := walker{}
	w.node(n, step{key: base}, 0)
	slices.SortStableFunc(w.out, func(a, b Duplicate) int { return cmp.Compare(a.Line, b.Line) })
	return w.out
}

// step is one step of a field path: a key, or an index.
type step struct {
	key   string
	idx   int
	index bool
}

type walker struct {
	path []step
	out  []Duplicate
}

// maxDepth bounds the nesting Duplicates follows (yaml.v3 parses no deeper).
const maxDepth = 10000

func (w *walker) node(n *yaml.Node, s step, depth int) {
	if n == nil || depth > maxDepth {
		return
	}
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return
	}
	w.path = append(w.path, s)
	if n.Kind == yaml.MappingNode {
		w.mapping(n.Content)
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.node(n.Content[i], step{key: "?"}, depth+1)
			w.node(n.Content[i+1], step{key: n.Content[i].Value}, depth+1)
		}
	} else {
		for i, c := range n.Content {
			w.node(c, step{idx: i, index: true}, depth+1)
		}
	}
	w.path = w.path[:len(w.path)-1]
}

// keyOf is what makes two keys the same: yaml.v3 compares kinds and values.
type keyOf struct {
	kind  yaml.Kind
	value string
}

// mapping records the keys of a mapping (its content: keys and values)
// written twice.
func (w *walker) mapping(c []*yaml.Node) {
	if len(c) <= 2*smallMapping {
		for i := 2; i < len(c); i += 2 {
			for j := 0; j < i; j += 2 {
				if same(c[j], c[i]) {
					w.add(c[i], c[j])
					break
				}
			}
		}
		return
	}
	first := make(map[keyOf]*yaml.Node, len(c)/2)
	for i := 0; i < len(c); i += 2 {
		k := c[i]
		if k.Kind != yaml.ScalarNode && k.Kind != yaml.AliasNode {
			continue
		}
		if f, ok := first[keyOf{k.Kind, k.Value}]; ok {
			w.add(k, f)
			continue
		}
		first[keyOf{k.Kind, k.Value}] = k
	}
}

func same(a, b *yaml.Node) bool {
	return a.Kind == b.Kind && a.Value == b.Value && (a.Kind == yaml.ScalarNode || a.Kind == yaml.AliasNode)
}

func (w *walker) add(again, first *yaml.Node) {
	w.out = append(w.out, Duplicate{Path: w.pathTo(again.Value), Key: again.Value, Line: again.Line, First: first.Line})
}

// pathTo returns the field path of key in the mapping being walked.
func (w *walker) pathTo(key string) string {
	var b strings.Builder
	b.WriteString(w.path[0].key)
	for _, s := range append(w.path[1:], step{key: key}) {
		switch {
		case s.index:
			b.WriteString("[" + strconv.Itoa(s.idx) + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	return b.String()
}
