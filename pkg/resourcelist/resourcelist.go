package resourcelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/result"
)

const (
	// APIVersion is the ResourceList's apiVersion.
	APIVersion = "config.kubernetes.io/v1"
	// Kind is the ResourceList's kind.
	Kind = "ResourceList"
)

// ResourceList is a parsed KRM ResourceList: its items, functionConfig and
// results. Functions select the items they need, edit or delete them, and
// append new ones; Write puts every item they did not change back as its
// original bytes.
type ResourceList struct {
	src       []byte
	doc       *yaml.Node // the root mapping
	items     []*Item
	fnConfig  *yaml.RNode
	results   result.List
	oldResult []*yaml.Node // results the input already held
	enc       Encoder      // AppendFinal's
	sorted    result.List  // results, sorted; nil until asked for or after AddResults
}

// Parse reads a ResourceList. It fails only when the input is not YAML or not
// a ResourceList; problems with single items are left to the functions.
func Parse(in []byte) (rl *ResourceList, err error) {
	defer func() {
		if r := recover(); r != nil {
			rl, err = nil, fmt.Errorf("cannot parse the input as YAML: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(in))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the input is empty: expected a ResourceList")
		}
		return nil, fmt.Errorf("cannot parse the input as YAML: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("the input holds more than one YAML document: expected a single ResourceList")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the input is not a ResourceList: expected a mapping with kind ResourceList")
	}
	rn := yaml.NewRNode(root)
	h := readHeader(rn, -1)
	if h.Kind != Kind || (h.APIVersion != APIVersion && h.APIVersion != "config.kubernetes.io/v1alpha1") {
		return nil, fmt.Errorf("the input is not a ResourceList: got apiVersion %q kind %q, expected apiVersion %q kind %q",
			h.APIVersion, h.Kind, APIVersion, Kind)
	}
	rl = &ResourceList{src: in, doc: root}
	if f := rn.Field("items"); f != nil {
		switch f.Value.YNode().Kind {
		case yaml.SequenceNode:
			for i, n := range f.Value.YNode().Content {
				rl.items = append(rl.items, &Item{node: yaml.NewRNode(n), pos: i})
			}
		case yaml.ScalarNode:
			if f.Value.YNode().Tag != yaml.NodeTagNull {
				return nil, errors.New("the ResourceList's items is not a list")
			}
		default:
			return nil, errors.New("the ResourceList's items is not a list")
		}
	}
	if f := rn.Field("functionConfig"); f != nil && !yaml.IsMissingOrNull(f.Value) {
		rl.fnConfig = f.Value
	}
	if f := rn.Field("results"); f != nil && f.Value.YNode().Kind == yaml.SequenceNode {
		rl.oldResult = f.Value.YNode().Content
	}
	return rl, nil
}

// FromNodes returns a ResourceList of items held as nodes (a package read
// from its files) and a functionConfig (nil for none). The items count as
// read, not added; the list holds the nodes given, and Write encodes every
// item (there are no input bytes to copy).
func FromNodes(items []*yaml.RNode, fnConfig *yaml.RNode) *ResourceList {
	rl := Empty()
	if fnConfig != nil {
		rl.doc.Content = append(rl.doc.Content, str("functionConfig"), fnConfig.YNode())
		rl.fnConfig = fnConfig
	}
	rl.items = make([]*Item, len(items))
	for i, n := range items {
		rl.items[i] = &Item{node: n, pos: i}
	}
	return rl
}

// Nodes returns the items' nodes, deleted ones left out, as Write would
// write them: changed and new items with the strings YAML 1.1 would misread
// quoted. It is how a caller that keeps items as nodes (a package sink)
// takes a function's output without writing and parsing it.
func (rl *ResourceList) Nodes() []*yaml.RNode {
	nodes := rl.liveNodes()
	out := make([]*yaml.RNode, len(nodes))
	for i, n := range nodes {
		out[i] = yaml.NewRNode(n)
	}
	return out
}

// FunctionConfig returns the functionConfig, or nil when there is none.
func (rl *ResourceList) FunctionConfig() *yaml.RNode { return rl.fnConfig }

// Select returns the items (not deleted) whose header matches, in order.
func (rl *ResourceList) Select(match func(Header) bool) []*Item {
	var out []*Item
	for _, it := range rl.items {
		if it.state != stateDeleted && match(it.Header()) {
			out = append(out, it)
		}
	}
	return out
}

// Len returns the number of items, deleted ones excluded.
func (rl *ResourceList) Len() int {
	n := 0
	for _, it := range rl.items {
		if it.state != stateDeleted {
			n++
		}
	}
	return n
}

// Append adds a new item at the end of the list. A non-empty path is set as
// the item's config.kubernetes.io/path annotation unless it has one.
func (rl *ResourceList) Append(n *yaml.RNode, path string) (*Item, error) {
	if err := setPath(n, path); err != nil {
		return nil, err
	}
	it := &Item{node: n, pos: -1, state: stateAdded}
	rl.items = append(rl.items, it)
	return it, nil
}

// setPath sets a new item's path annotation, unless path is empty or the
// item has one.
func setPath(n *yaml.RNode, path string) error {
	if path != "" && annotation(n.YNode(), kptfile.AnnotationPath) == "" {
		if err := n.PipeE(yaml.SetAnnotation(kptfile.AnnotationPath, path)); err != nil {
			return fmt.Errorf("cannot set the path of a new item: %w", err)
		}
	}
	return nil
}

// AppendFinal adds a new item, like Append, that its maker is done with: the
// list keeps none of n's nodes, which the maker may reuse. It keeps the
// item's text, encoded now: a function adding thousands of items holds their
// bytes instead of their trees. Node parses the text again if someone reads
// the item; Edit makes it an item written from its nodes. An item with
// comments or flow style (one the plain emitter does not write) is kept as a
// copy of its nodes instead: its text might not read back the same.
func (rl *ResourceList) AppendFinal(n *yaml.RNode, path string) (*Item, error) {
	f, err := rl.enc.Final(n, path)
	if err != nil {
		return nil, err
	}
	return rl.AddFinal(f), nil
}

// AddFinal adds an item an Encoder made final, at the end of the list.
func (rl *ResourceList) AddFinal(f Final) *Item {
	it := &Item{pos: -1, state: stateAdded, enc: f.enc}
	if f.enc == nil {
		it.node = yaml.NewRNode(f.node)
	} else {
		h := f.hdr
		it.hdr = &h
	}
	rl.items = append(rl.items, it)
	return it
}

// Final is a new item encoded by an Encoder, for AddFinal.
type Final struct {
	enc  []byte     // its entry in the list; nil when kept as nodes
	node *yaml.Node // a copy of its nodes, when not encoded
	hdr  Header
}

// Encoder makes new items final (see AppendFinal) away from the list, so
// that a function can encode many at once: one Encoder per goroutine.
type Encoder struct {
	scratch bytes.Buffer // where items are encoded
	arena   []byte       // where their encodings are kept, end to end
}

// Final sets the item's path as Append does and encodes it; n's nodes are
// free for reuse when it returns.
func (e *Encoder) Final(n *yaml.RNode, path string) (Final, error) {
	if err := setPath(n, path); err != nil {
		return Final{}, err
	}
	y := n.YNode()
	quoteAmbiguous(y)
	e.scratch.Reset()
	if !emitEntry(&e.scratch, y, 1) {
		return Final{node: yaml.CopyYNode(y)}, nil
	}
	return Final{enc: e.keep(e.scratch.Bytes()), hdr: readHeader(n, -1)}, nil
}

// arenaSize is the size of the blocks an Encoder keeps encodings in.
const arenaSize = 256 << 10

// keep copies an encoding into the arena: thousands of items' text in a few
// blocks, not in thousands of growing buffers.
func (e *Encoder) keep(enc []byte) []byte {
	if len(enc) > cap(e.arena)-len(e.arena) {
		e.arena = make([]byte, 0, max(arenaSize, len(enc)))
	}
	start := len(e.arena)
	e.arena = append(e.arena, enc...)
	return e.arena[start:len(e.arena):len(e.arena)]
}

// annotation returns the value of an item's annotation, or "".
func annotation(n *yaml.Node, key string) string {
	md := fieldpath.Field(n, "metadata")
	if md == nil {
		return ""
	}
	if a := fieldpath.Field(md, "annotations"); a != nil {
		return scalarValue(fieldpath.Field(a, key))
	}
	return ""
}

// Delete removes the item from the output.
func (rl *ResourceList) Delete(it *Item) { it.state = stateDeleted }

// AddResults records results to report.
func (rl *ResourceList) AddResults(rs ...result.Result) {
	rl.results = append(rl.results, rs...)
	rl.sorted = nil
}

// Results returns the results recorded so far, sorted.
// It sorts once however often it is asked (Write asks, and so does the
// caller that reports them): read the list, do not change its results.
func (rl *ResourceList) Results() result.List {
	if rl.sorted == nil {
		rl.sorted = rl.results.Sorted()
	}
	return slices.Clip(rl.sorted)
}

// HasError reports whether an error result was recorded.
func (rl *ResourceList) HasError() bool { return rl.results.HasError() }

// Empty returns an empty ResourceList, for reporting results when the input
// could not be read.
func Empty() *ResourceList {
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("apiVersion"), str(APIVersion), str("kind"), str(Kind),
	}}
	return &ResourceList{doc: doc}
}

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s}
}

// Guard records every item's encoding now, so that GuardViolations can tell
// later which items changed without Edit being called on them. Tests use it
// to prove that functions declare what they change.
func (rl *ResourceList) Guard() {
	for _, it := range rl.items {
		if it.state == stateKept {
			it.guard = encodeNode(it.node.YNode())
		}
	}
}

// GuardViolations names the items that changed since Guard without Edit.
func (rl *ResourceList) GuardViolations() []string {
	var out []string
	for _, it := range rl.items {
		if it.state == stateKept && it.guard != nil && !bytes.Equal(it.guard, encodeNode(it.node.YNode())) {
			out = append(out, it.Header().String())
		}
	}
	return out
}
