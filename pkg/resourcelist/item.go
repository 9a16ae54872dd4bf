package resourcelist

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
	"github.com/kptkit/kptkit/pkg/result"
)

type itemState uint8

const (
	stateKept itemState = iota
	stateEdited
	stateAdded
	stateDeleted
)

// Item is one item of a ResourceList. Read it through Header and Node; call
// Edit before changing it, so that the ResourceList knows to write it anew
// (an item that is not edited is written out as its original bytes).
type Item struct {
	rl   *ResourceList
	node *yaml.RNode // nil until read, for an item of the input read lazily or kept encoded
	pos  int         // position in the input, -1 for a new item
	enc  []byte      // an item kept encoded: its entry in the list, until it is edited
	hdr  *Header     // the header read from the node, or from the entry by yaml.v3
	scan *scan.Item  // what the scan read from the entry, while the item is kept
	// snap is the encoding of the node when Edit was first called, or,
	// for an item still kept, when Guard was called (tests).
	snap  []byte
	entry scan.Entry // where the item's entry sits in the input, when the layout is known
	state itemState
}

// Node returns the item's parsed YAML for reading. Use Edit to change it.
func (it *Item) Node() *yaml.RNode {
	if it.node == nil {
		if it.enc != nil {
			it.node = yaml.NewRNode(decodeEntry(it.enc))
		} else {
			it.rl.load(it)
		}
	}
	return it.node
}

// Read returns the item's parsed YAML for reading once, like Node, but
// an item that nobody has read yet (of the input, or added encoded) does
// not keep the nodes built for it: a function that reads every item once
// (a checksum, a search) holds one item's nodes at a time instead of all
// of them. Read again, the item is parsed again; to change it, use Edit.
func (it *Item) Read() *yaml.RNode {
	if it.node == nil && it.enc != nil {
		return yaml.NewRNode(decodeEntry(it.enc))
	}
	if it.node != nil || it.enc != nil || it.scan == nil {
		return it.Node()
	}
	if n := it.rl.build(it); n != nil {
		return yaml.NewRNode(n)
	}
	return it.Node()
}

// Edit returns the item's YAML for changing. The item is written anew only if
// its content really differs when the ResourceList is written.
func (it *Item) Edit() *yaml.RNode {
	it.Node()
	it.enc = nil // written from its node from now on
	if it.state == stateKept {
		if it.rl.onEdit != nil && it.pos >= 0 {
			it.rl.onEdit(it.pos, it.node.YNode())
		}
		it.snap = emit.Encode(it.node.YNode())
		it.state = stateEdited
	}
	it.hdr, it.scan = nil, nil
	return it.node
}

// Header returns the item's identity and the annotations functions select by.
func (it *Item) Header() Header {
	switch {
	case it.state == stateEdited || (it.state == stateAdded && it.enc == nil):
		h := readHeader(it.node, it.pos)
		it.hdr = &h
	case it.hdr != nil:
	case it.scan != nil:
		h := scannedHeader(it.scan, it.pos)
		if it.node == nil {
			return h // an item nobody selected or read keeps no maps
		}
		it.hdr = &h
	default:
		h := readHeader(it.Node(), it.pos)
		it.hdr = &h
	}
	return *it.hdr
}

// Position is the item's 0-based position in the input ResourceList, or -1
// for an item a function added.
func (it *Item) Position() int { return it.pos }

// Errorf returns an error result about this item and the given field.
func (it *Item) Errorf(field, format string, args ...any) result.Result {
	return it.Header().Attach(result.Errorf(format, args...).WithField(field))
}

// Warningf returns a warning result about this item and the given field.
func (it *Item) Warningf(field, format string, args ...any) result.Result {
	return it.Header().Attach(result.Warningf(format, args...).WithField(field))
}

// Infof returns an info result about this item.
func (it *Item) Infof(format string, args ...any) result.Result {
	return it.Header().Attach(result.Infof(format, args...))
}

// Entry returns the item's entry in the list as the list holds it ("- "
// and the item indented), for an item kept as its bytes: added encoded, or
// read lazily and not edited. It is false for an item held as its nodes.
// The bytes are the list's: do not change them.
func (it *Item) Entry() ([]byte, bool) {
	switch {
	case it.enc != nil:
		return it.enc, true
	case it.state == stateKept && it.rl.lazy != nil && it.entry.End > it.entry.Start:
		return it.rl.src[it.entry.Start:it.entry.End], true
	}
	return nil, false
}

// decodeEntry builds the nodes of an item kept encoded (an entry the
// emitter wrote) with the scan, which is sure of what the emitter writes
// but a few odd strings; yaml.v3 parses the others. The nodes' lines are
// the entry's from 1; their columns, the entry's.
func decodeEntry(enc []byte) *yaml.Node {
	var s scan.Scanner
	if s.Scan(enc, 0, len(enc), 0) {
		var b scan.Scanner
		if n := b.Build(enc, 0, len(enc), 0, 1, s.Item().Nodes()); n != nil {
			return n
		}
	}
	return emit.DecodeEntry(enc)
}
