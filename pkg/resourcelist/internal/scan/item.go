package scan

import (
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

// Item is what the scan read of an item's entry: its header's strings end
// to end in text, and spans of them, and how many nodes the entry has. It
// is what an untouched item costs beyond its bytes; the maps of its labels
// and annotations are made when they are asked for.
type Item struct {
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

func (s *Item) str(sp span) string {
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

// APIVersion is the item's apiVersion ("" when it is not a string).
func (s *Item) APIVersion() string { return s.str(s.vals[0]) }

// Kind is the item's kind ("" when it is not a string).
func (s *Item) Kind() string { return s.str(s.vals[1]) }

// Name is the item's metadata.name ("" when it is not a string).
func (s *Item) Name() string { return s.str(s.vals[2]) }

// Namespace is the item's metadata.namespace ("" when it is not a string).
func (s *Item) Namespace() string { return s.str(s.vals[3]) }

// Labels returns the item's labels with a scalar value, or nil when
// metadata.labels is not a mapping.
func (s *Item) Labels() map[string]string {
	if !s.hasLabels {
		return nil
	}
	return s.strMap(s.kvs[:s.nLabels])
}

// Annotations returns the item's annotations with a scalar value, or nil
// when metadata.annotations is not a mapping.
func (s *Item) Annotations() map[string]string {
	if !s.hasAnnotation {
		return nil
	}
	return s.strMap(s.kvs[s.nLabels:])
}

// Path is the file the item comes from, as its annotations say (kpt's
// internal path first, then its path; "" for none), read without making
// the map of its annotations.
func (s *Item) Path() string {
	if !s.hasAnnotation {
		return ""
	}
	if p := s.annotation(kptfile.AnnotationInternalPath); p != "" {
		return p
	}
	return s.annotation(kptfile.AnnotationPath)
}

// annotation returns the value of an annotation with a scalar value, or "".
func (s *Item) annotation(key string) string {
	kvs := s.kvs[s.nLabels:]
	for i := 0; i+1 < len(kvs); i += 2 {
		if s.str(kvs[i]) == key {
			return s.str(kvs[i+1])
		}
	}
	return ""
}

// Nodes is how many nodes the entry has, for Build.
func (s *Item) Nodes() int { return s.nodes }

func (s *Item) strMap(kvs []span) map[string]string {
	m := make(map[string]string, len(kvs)/2)
	for i := 0; i+1 < len(kvs); i += 2 {
		m[s.str(kvs[i])] = s.str(kvs[i+1])
	}
	return m
}

// Item returns what the last Scan read (when it was sure).
func (s *Scanner) Item() *Item {
	out := &Item{text: string(s.text), vals: s.vals, hasLabels: s.hasLbl, hasAnnotation: s.hasAnn, nodes: s.nodes}
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

// Comment reports whether the last entry scanned ends with a comment line
// after its last content line (or a comment after an indicator that
// announces what comes next): a comment between two items, which yaml.v3
// may attach to either.
func (s *Scanner) Comment() bool { return s.comment }
