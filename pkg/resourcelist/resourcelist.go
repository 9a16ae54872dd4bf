package resourcelist

import (
	"bytes"
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
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
	doc       *yaml.Node // the root mapping, when the list was parsed whole
	items     []*Item
	fnConfig  *yaml.RNode
	results   result.List
	oldResult []*yaml.Node // results the input already held
	resultsIn *yaml.RNode  // the input's results value, whatever its shape
	sorted    result.List  // results, sorted; nil until asked for or after AddResults
	layout    layout
	lazy      *lazyList // how to read the items' nodes, when the list was read lazily
	guarded   bool      // Guard was called: items read later are guarded when read
	onEdit    func(pos int, n *yaml.Node)
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
		rl.items[i] = &Item{rl: rl, node: n, pos: i}
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

// OnEdit has fn called when Edit is first called on an item of the input,
// with its position and its nodes, before the caller changes them: a caller
// that keeps copies of the items a function changes (kpt's runner restores
// their comments) copies only those. It may be called on several
// goroutines, each item on one.
func (rl *ResourceList) OnEdit(fn func(pos int, n *yaml.Node)) { rl.onEdit = fn }

// FunctionConfig returns the functionConfig, or nil when there is none.
func (rl *ResourceList) FunctionConfig() *yaml.RNode { return rl.fnConfig }

// InputResults returns the value of the input's results field as parsed
// (a list, or whatever else it holds), or nil when it has none: for a
// caller reading another program's output as kyaml's ByteReader does.
func (rl *ResourceList) InputResults() *yaml.RNode { return rl.resultsIn }

// Select returns the items (not deleted) whose header matches, in order.
// The items it returns keep their header (functions ask for it again);
// the others keep none when they were read lazily. match is called on
// the caller's goroutine, item after item.
func (rl *ResourceList) Select(match func(Header) bool) []*Item {
	return rl.selectWhere(nil, match)
}

// SelectKind is Select over the items of one apiVersion and kind: the
// other items of a list read lazily are passed over without reading the
// rest of their header (their labels and annotations).
func (rl *ResourceList) SelectKind(apiVersion, kind string, match func(Header) bool) []*Item {
	is := func(s *scan.Item) bool { return s.APIVersion() == apiVersion && s.Kind() == kind }
	return rl.selectWhere(is, func(h Header) bool { return h.Is(apiVersion, kind) && match(h) })
}

// SelectFile is Select over the items from one of the files named
// (Header.Path; "" for the items that name none): the other items of a
// list read lazily are passed over without reading the rest of their
// header (their labels, and the map of their annotations).
func (rl *ResourceList) SelectFile(paths []string, match func(Header) bool) []*Item {
	is := func(s *scan.Item) bool { return slices.Contains(paths, s.Path()) }
	return rl.selectWhere(is, func(h Header) bool { return slices.Contains(paths, h.Path) && match(h) })
}

// selectWhere is Select, passing over the items whose scanned header (see
// scan.Item) is not one of those maybe accepts (nil: all are).
func (rl *ResourceList) selectWhere(maybe func(*scan.Item) bool, match func(Header) bool) []*Item {
	var (
		out    []*Item
		hs, ok = rl.scannedHeaders(maybe)
		kept   = headers{filtered: maybe != nil}
	)
	for i, it := range rl.items {
		if it.state == stateDeleted {
			continue
		}
		var h Header
		switch {
		case ok != nil && ok[i]:
			if h = hs[i]; it.node != nil { // kept, as Header keeps it
				it.hdr = kept.keep(h, len(rl.items)-i)
			}
		case maybe != nil && fromScan(it) && !maybe(it.scan):
			continue
		default:
			h = it.Header()
		}
		if match(h) {
			if it.hdr == nil {
				it.hdr = kept.keep(h, len(rl.items)-i)
			}
			out = append(out, it)
		}
	}
	return out
}

// headers are the headers a selection keeps for its items, made a chunk
// at a time rather than one by one: a chunk for the items left to look
// at (at most 64), or, when the selection passes over most items unread
// (filtered: SelectKind, SelectFile), a few first and twice as many each
// time.
type headers struct {
	chunk    []Header
	filtered bool
}

// keep returns where h is kept; left is how many items the selection has
// yet to look at (this one included), at most how many more it keeps.
func (hs *headers) keep(h Header, left int) *Header {
	if len(hs.chunk) == cap(hs.chunk) {
		n := 64
		if hs.filtered {
			n = max(4, 2*cap(hs.chunk))
		}
		hs.chunk = make([]Header, 0, min(left, n))
	}
	hs.chunk = append(hs.chunk, h)
	return &hs.chunk[len(hs.chunk)-1]
}

// fromScan reports whether Header reads the item's header from its scan.
func fromScan(it *Item) bool { return it.state == stateKept && it.hdr == nil && it.scan != nil }

// scannedHeaders reads, on a few goroutines, the headers of a long list's
// items that Header would read from their scan (and maybe accepts): ok[i]
// says hs[i] is item i's. Nil for a short list.
func (rl *ResourceList) scannedHeaders(maybe func(*scan.Item) bool) (hs []Header, ok []bool) {
	w := parallel.Workers(len(rl.items), minScanRun)
	if w < 2 {
		return nil, nil
	}
	hs, ok = make([]Header, len(rl.items)), make([]bool, len(rl.items))
	parallel.Do(len(rl.items), w, func(_, i int) {
		if it := rl.items[i]; fromScan(it) && (maybe == nil || maybe(it.scan)) {
			hs[i], ok[i] = scannedHeader(it.scan, it.pos), true
		}
	})
	return hs, ok
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
	it := &Item{rl: rl, node: n, pos: -1, state: stateAdded}
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
// to prove that functions declare what they change. Items read lazily are
// recorded when they are first read.
func (rl *ResourceList) Guard() {
	rl.guarded = true
	for _, it := range rl.items {
		if it.state == stateKept && it.node != nil {
			it.snap = emit.Encode(it.node.YNode())
		}
	}
}

// GuardViolations names the items that changed since Guard without Edit.
func (rl *ResourceList) GuardViolations() []string {
	var out []string
	for _, it := range rl.items {
		if it.state == stateKept && it.snap != nil && it.node != nil && !bytes.Equal(it.snap, emit.Encode(it.node.YNode())) {
			out = append(out, it.Header().String())
		}
	}
	return out
}
