package resourcelist

import (
	"bytes"
	"hash/maphash"
)

// The scan refuses a key written twice in one mapping as yaml.v3 does when
// it decodes into a Go value: it is unsure of such an entry, which yaml.v3
// then parses, and Parse reports it (duplicates.go). The keys of the
// mappings being read are kept innermost last: a small mapping's are
// compared one by one, a larger one's are hashed.

// keySet is the keys of one mapping being read: its first smallMapping
// keys in itemScan.keys (from on), the others hashed in itemScan.big.
type keySet struct {
	from int
	n    int
	id   uint64 // tells its hashes apart in itemScan.big
}

// smallMapping is the most keys a mapping has for the scan to compare a
// key with each of them.
const smallMapping = 8

// maxKept is the most hashes itemScan.big keeps from one entry to the
// next: beyond it, the map is dropped rather than cleared.
const maxKept = 4096

// keySet returns the key set for a mapping that starts now.
func (s *itemScan) keySet() keySet {
	s.maps++
	return keySet{from: len(s.keys), id: s.maps}
}

// unique records the key t of the mapping ks and reports whether the
// mapping did not have it yet. (Two keys whose hashes meet are taken for
// the same: the entry goes to yaml.v3, which tells.)
func (s *itemScan) unique(line []byte, t tok, ks *keySet) bool {
	k := line[t.start:t.end]
	if t.escaped {
		start := len(s.keyText)
		s.keyText = appendScalar(s.keyText, k, t)
		k = s.keyText[start:]
	}
	ks.n++
	if ks.n <= smallMapping {
		for _, o := range s.keys[ks.from:] {
			if bytes.Equal(o, k) {
				return false
			}
		}
		s.keys = append(s.keys, k)
		return true
	}
	if s.big == nil {
		s.big, s.seed = map[uint64]struct{}{}, maphash.MakeSeed()
	}
	if ks.n == smallMapping+1 {
		for _, o := range s.keys[ks.from:] {
			s.big[s.hash(ks, o)] = struct{}{}
		}
	}
	h := s.hash(ks, k)
	if _, ok := s.big[h]; ok {
		return false
	}
	s.big[h] = struct{}{}
	return true
}

func (s *itemScan) hash(ks *keySet, k []byte) uint64 {
	return maphash.Bytes(s.seed, k) + ks.id*0x9e3779b97f4a7c15
}

// endKeys forgets the keys of a mapping read to its end.
func (s *itemScan) endKeys(ks keySet) {
	s.keys = s.keys[:ks.from]
}

// resetKeys forgets every key, for the next entry.
func (s *itemScan) resetKeys() {
	s.keys, s.keyText, s.maps = s.keys[:0], s.keyText[:0], 0
	switch n := len(s.big); {
	case n > maxKept:
		s.big = nil
	case n > 0:
		clear(s.big)
	}
}
