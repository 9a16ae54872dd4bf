package resourcelist

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// load parses the nodes of an item read lazily: the scan builds them from
// its entry, or, for an entry glued to its neighbours (see lazyList),
// yaml.v3 parses the run of entries it is in together, or the whole list
// when the run reaches a comment at either end of the items. Items may be
// read on several goroutines, each item on one: a run parsed is kept for
// the other items of the run, and each item takes its own nodes.
func (rl *ResourceList) load(it *Item) {
	if n := rl.build(it); n != nil {
		rl.setNode(it, n)
		return
	}
	glue := rl.lazy.glue
	lo, hi := it.pos, it.pos
	for lo > 0 && glue[lo-1] {
		lo--
	}
	for hi+1 < len(glue) && glue[hi] {
		hi++
	}
	rl.setNode(it, rl.run(lo, hi)[it.pos-lo])
}

// run returns the nodes of the run of entries lo to hi, parsed once.
func (rl *ResourceList) run(lo, hi int) []*yaml.Node {
	lz := rl.lazy
	lz.mu.Lock()
	defer lz.mu.Unlock()
	if nodes, ok := lz.runs[lo]; ok {
		return nodes
	}
	var nodes []*yaml.Node
	ok := false
	if !(lo == 0 && lz.lead) && !lz.glue[hi] {
		first, last := rl.items[lo].entry, rl.items[hi].entry
		nodes, ok = parseEntries(rl.src[first.Start:last.End], int(first.Line), hi-lo+1)
	}
	if !ok {
		nodes = rl.wholeItems()[lo : hi+1]
	}
	if lz.runs == nil {
		lz.runs = map[int][]*yaml.Node{}
	}
	lz.runs[lo] = nodes
	return nodes
}

// setNode gives an item read lazily its nodes.
func (rl *ResourceList) setNode(it *Item, n *yaml.Node) {
	it.node = yaml.NewRNode(n)
	if rl.guarded && it.state == stateKept {
		it.snap = emit.Encode(n)
	}
}

// build builds an item's nodes from its entry with the scan, or returns
// nil when the scan cannot (the entry is glued to its neighbours, or holds
// what the builder does not make).
func (rl *ResourceList) build(it *Item) *yaml.Node {
	glue := rl.lazy.glue
	if it.scan == nil || glue[it.pos] || it.pos > 0 && glue[it.pos-1] || it.pos == 0 && rl.lazy.lead {
		return nil
	}
	var s scan.Scanner // its own: items may be read on several goroutines
	e := it.entry
	return s.Build(rl.src, int(e.Start), int(e.End), rl.layout.seqCol-1, int(e.Line), it.scan.Nodes())
}

// wholeItems parses the whole list and returns its items' nodes.
func (rl *ResourceList) wholeItems() []*yaml.Node {
	root, err := parseDoc(rl.src)
	if err == nil && root.Kind == yaml.MappingNode {
		if f := yaml.NewRNode(root).Field("items"); f != nil && len(f.Value.YNode().Content) == len(rl.lazy.glue) {
			return f.Value.YNode().Content
		}
	}
	panic(fmt.Sprintf("resourcelist: the list read lazily does not parse whole: %v", err))
}

// parseEntries parses n entries of the items sequence (text, starting at
// line) with yaml.v3 and returns their nodes, with the lines they have in
// the list. It fails unless they parse, as n entries without anchors or
// aliases (which could refer to other items).
func parseEntries(text []byte, line, n int) ([]*yaml.Node, bool) {
	seq, ok := parseText(text)
	if !ok || seq.Kind != yaml.SequenceNode || len(seq.Content) != n || !plainNodes(seq, 0) {
		return nil, false
	}
	shiftLines(seq, line-1)
	return seq.Content, true
}

// parseValue parses a root key and its value (text, starting at line) with
// yaml.v3 and returns the value's node.
func parseValue(text []byte, line int) (*yaml.Node, bool) {
	m, ok := parseText(text)
	if !ok || m.Kind != yaml.MappingNode || len(m.Content) != 2 || !plainNodes(m, 0) {
		return nil, false
	}
	shiftLines(m, line-1)
	return m.Content[1], true
}

// parseText parses a single YAML document with yaml.v3 and returns its
// root node.
func parseText(text []byte) (n *yaml.Node, ok bool) {
	defer func() {
		if recover() != nil {
			n, ok = nil, false
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) != 1 {
		return nil, false
	}
	return doc.Content[0], true
}

// plainNodes reports whether a tree has no anchors and no aliases.
func plainNodes(n *yaml.Node, depth int) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || depth > 10000 {
		return false
	}
	for _, c := range n.Content {
		if !plainNodes(c, depth+1) {
			return false
		}
	}
	return true
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}
