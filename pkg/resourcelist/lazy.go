package resourcelist

import (
	"bytes"
	"slices"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// minScanRun is the fewest items worth a goroutine of their own when the
// list is split: scanning one takes about a microsecond.
const minScanRun = 1024

// maxScanInSplit is the size of the largest list whose items are scanned as
// they are split, in one pass over their lines (scan.SplitScan): a larger
// one, which may have enough items for a few goroutines, is split first,
// then its entries are scanned, shared among them.
const maxScanInSplit = 1 << 20

// scanners are the Scanners SplitScan reads lists with, reused from list
// to list: their buffers, at most about the size of a list they read (a
// megabyte), are then grown once. A few are kept (a sync.Pool would drop
// them at every collection), and none holds a list.
var scanners = make(chan *scan.Scanner, 4)

// A ResourceList read lazily: its root keys are found line by line (each
// at column 0, its value on the lines below), every key but the items is
// parsed by yaml.v3 on its own, and the items are split at their dashes
// and scanned (package scan). An item's nodes are parsed from its entry
// when a function asks for them. Whatever the split cannot be sure of (flow
// style, documents markers, anchors, tabs or comments in odd places...)
// makes Parse read the list whole with yaml.v3, as it always did.

// lazyList is what reading the items' nodes needs.
type lazyList struct {
	// glue[i] says a comment sits between item i and the next (or the end
	// of the items, for the last one). yaml.v3 may attach such a comment
	// to either item, so the items it joins are parsed together, and a
	// run of items that reaches a comment before the first item (lead) or
	// after the last is parsed with the whole list.
	glue []bool
	lead bool
	mu   sync.Mutex
	runs map[int][]*yaml.Node // runs of glued entries parsed, by their first item
}

// parseLazy reads a ResourceList lazily, or returns nil when the list is
// to be parsed whole (which also gives the errors).
func parseLazy(in []byte) *ResourceList {
	return readLazy(in, len(in) <= maxScanInSplit)
}

// readLazy is parseLazy, the items scanned as they are split or after.
func readLazy(in []byte, scanInSplit bool) *ResourceList {
	split := scan.Split
	if scanInSplit {
		split = splitScan
	}
	sp, ok := split(in)
	if !ok {
		return nil
	}
	rl := &ResourceList{src: in}
	if !rl.scanItems(sp) || !rl.rootValues(sp) {
		return nil
	}
	rl.layout = layout{ok: true, keys: sp.Keys, entries: len(rl.items) > 0, seqCol: sp.SeqCol + 1}
	return rl
}

// splitScan is scan.SplitScan with one of the scanners.
func splitScan(in []byte) (*scan.List, bool) {
	var s *scan.Scanner
	select {
	case s = <-scanners:
	default:
		s = new(scan.Scanner)
	}
	sp, ok := scan.SplitScan(in, s)
	select {
	case scanners <- s:
	default:
	}
	return sp, ok
}

// scanItems scans every entry, the entries shared among a few goroutines
// (unless SplitScan did already), and makes the items: with the header the
// scan read, or, where it was unsure, the one yaml.v3 reads from the entry.
func (rl *ResourceList) scanItems(sp *scan.List) bool {
	n := len(sp.Entries)
	if n == 0 {
		return true
	}
	slab := make([]Item, n)
	rl.items = make([]*Item, n)
	rl.lazy = &lazyList{glue: make([]bool, n), lead: sp.Lead}
	var (
		w     = parallel.Workers(n, minScanRun)
		scans []scan.Scanner
		bad   = make([]bool, w)
		null  = make([]bool, n) // an empty entry, read by yaml.v3
	)
	if !sp.Scanned() {
		scans = make([]scan.Scanner, w)
		for w := range scans {
			scans[w].NoTabs = sp.NoTabs
		}
	}
	parallel.Do(n, w, func(w, i int) {
		e := sp.Entries[i]
		it := &slab[i]
		*it = Item{rl: rl, pos: i, entry: e}
		rl.items[i] = it
		if sp.Scanned() {
			if sc, comment := sp.Item(i); sc != nil {
				it.scan, rl.lazy.glue[i] = sc, comment
				return
			}
		} else if s := &scans[w]; s.Scan(rl.src, int(e.Start), int(e.End), sp.SeqCol) {
			it.scan = s.Item()
			rl.lazy.glue[i] = s.Comment()
			return
		}
		nodes, ok := parseEntries(rl.src[e.Start:e.End], int(e.Line), 1)
		if !ok || hasDuplicates(nodes[0]) {
			bad[w] = true // parsed whole, which reports the duplicates
			return
		}
		h := readHeader(yaml.NewRNode(nodes[0]), i)
		it.hdr = &h
		rl.lazy.glue[i] = bytes.IndexByte(rl.src[e.Start:e.End], '#') >= 0
		null[i] = nodes[0].Kind == yaml.ScalarNode && nodes[0].Tag == yaml.NodeTagNull
	})
	if slices.Contains(bad, true) {
		return false
	}
	for i := range null {
		if null[i] {
			// A comment before an empty entry goes to what follows it.
			rl.lazy.glue[i] = true
			if i > 0 {
				rl.lazy.glue[i-1] = true
			}
		}
	}
	// A comment after the last item is one before the next root key.
	for k, key := range sp.Keys {
		if key.Name == "items" && rl.lazy.glue[n-1] {
			if k+1 < len(sp.Keys) {
				sp.Before[k+1] = true
			} else {
				sp.After = true
			}
		}
	}
	return true
}

// rootValues parses every root key's value but the items', each on its
// own, and keeps the functionConfig and the results. The list is read
// whole (nil) when a key repeats (a root key, or a key of a mapping in a
// value), when it is not a ResourceList, or when a
// comment sits next to the functionConfig or the results (yaml.v3 may
// attach it to their nodes).
func (rl *ResourceList) rootValues(sp *scan.List) bool {
	var h Header
	seen := map[string]bool{}
	for k, key := range sp.Keys {
		if seen[key.Name] {
			return false
		}
		seen[key.Name] = true
		if key.Name == "items" {
			continue
		}
		after := sp.After
		if k+1 < len(sp.Keys) {
			after = sp.Before[k+1]
		}
		if (key.Name == "functionConfig" || key.Name == "results") && (sp.Before[k] || after) {
			return false
		}
		text := rl.src[key.Start:key.End]
		// The commonest lines of all, read without yaml.v3.
		if s, ok := scan.RootScalar(text); ok && (key.Name == "apiVersion" || key.Name == "kind") {
			if key.Name == "apiVersion" {
				h.APIVersion = s
			} else {
				h.Kind = s
			}
			continue
		}
		if key.Name == "functionConfig" {
			if v := scanValue(text, sp.KeyLines[k]); v != nil {
				rl.setRoot(&yaml.MapNode{Value: yaml.NewRNode(v)}, nil)
				continue
			}
		}
		v, ok := parseValue(text, sp.KeyLines[k])
		if !ok || hasDuplicates(v) {
			return false
		}
		switch key.Name {
		case "apiVersion":
			h.APIVersion = scalarValue(v)
		case "kind":
			h.Kind = scalarValue(v)
		case "functionConfig":
			rl.setRoot(&yaml.MapNode{Value: yaml.NewRNode(v)}, nil)
		case "results":
			rl.setRoot(nil, &yaml.MapNode{Value: yaml.NewRNode(v)})
		}
	}
	return checkKind(h) == nil
}

// scanValue builds, with the scan, the nodes of a root key's value that is
// a block mapping (text, from the key's line, at line: the functionConfig)
// as it builds an item's: a copy of the value whose first line is made an
// entry's ("  a: 1" read as "- a: 1"). It returns nil when the scan is
// unsure (a key written twice, a comment, what the builder does not make...):
// yaml.v3 parses the value then.
func scanValue(text []byte, line int) *yaml.Node {
	key, value, _ := bytes.Cut(text, []byte("\n"))
	ind := 0
	for ind < len(value) && value[ind] == ' ' {
		ind++
	}
	if len(key) == 0 || key[len(key)-1] != ':' || bytes.ContainsAny(key, " #") ||
		ind < 2 || ind == len(value) || bytes.IndexByte([]byte("#-\r\n"), value[ind]) >= 0 {
		return nil
	}
	entry := bytes.Clone(value)
	entry[ind-2] = '-'
	var s scan.Scanner
	if !s.Scan(entry, 0, len(entry), ind-2) || s.Comment() {
		return nil
	}
	var b scan.Scanner // Build is called on a zero Scanner
	return b.Build(entry, 0, len(entry), ind-2, line+1, s.Item().Nodes())
}
