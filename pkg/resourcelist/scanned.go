package resourcelist

import (
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

// scanned is an item's header as the scan read it: its strings end to end
// in text, and spans of them. It is what an untouched item costs beyond
// its bytes; the maps of a Header are made when it is asked for.
type scanned struct {
	text          string
	vals          [4]span // apiVersion, kind, name, namespace
	kvs           []span  // labels then annotations: key, value, key, value...
	nLabels       int     // how many of kvs are labels' (keys and values)
	hasLabels     bool    // labels is a mapping (an empty one included)
	hasAnnotation bool
	nodes         int // how many nodes the entry has
}

// span is a string of a scanned header: a range of its text, or, with
// the static bit set in start, one of the staticKeys.
type span struct{ start, end uint32 }

const static = 1 << 31

func (s *scanned) str(sp span) string {
	if sp.start&static != 0 {
		return staticKeys[sp.start&^static]
	}
	return s.text[sp.start:sp.end]
}

// staticKeys are the annotation keys (kpt's, kptkit's) that nearly every
// item of a list has: its header points at these instead of keeping a
// copy of each.
var staticKeys = [...]string{
	kptfile.AnnotationPath, kptfile.AnnotationIndex, kptfile.AnnotationInternalPath, kptfile.AnnotationInternalIndex,
	kptfile.AnnotationLocalConfig, kptfile.AnnotationConfigInjection, v1alpha1.AnnotationInCluster,
}

// staticKey returns the span of key when it is one of the staticKeys.
func staticKey(key []byte) (span, bool) {
	for i, k := range staticKeys {
		if string(key) == k {
			return span{start: static | uint32(i)}, true
		}
	}
	return span{}, false
}

// header returns the Header the scan read, at position pos.
func (s *scanned) header(pos int) Header {
	h := Header{
		APIVersion: s.str(s.vals[0]),
		Kind:       s.str(s.vals[1]),
		Name:       s.str(s.vals[2]),
		Namespace:  s.str(s.vals[3]),
		Position:   pos,
	}
	if s.hasLabels {
		h.Labels = s.strMap(s.kvs[:s.nLabels])
	}
	if s.hasAnnotation {
		h.Annotations = s.strMap(s.kvs[s.nLabels:])
	}
	h.place()
	return h
}

func (s *scanned) strMap(kvs []span) map[string]string {
	m := make(map[string]string, len(kvs)/2)
	for i := 0; i+1 < len(kvs); i += 2 {
		m[s.str(kvs[i])] = s.str(kvs[i+1])
	}
	return m
}

// result returns the header the scan read.
func (s *itemScan) result() *scanned {
	out := &scanned{text: string(s.text), vals: s.vals, hasLabels: s.hasLbl, hasAnnotation: s.hasAnn, nodes: s.nodes}
	n := 0
	for _, list := range [][]kv{s.labels, s.annots} {
		for _, e := range list {
			if e.scalar {
				n += 2
			}
		}
	}
	if n > 0 {
		out.kvs = make([]span, 0, n)
	}
	for i, list := range [][]kv{s.labels, s.annots} {
		if i == 1 {
			out.nLabels = len(out.kvs)
		}
		for _, e := range list {
			if e.scalar {
				out.kvs = append(out.kvs, e.k, e.v)
			}
		}
	}
	return out
}
