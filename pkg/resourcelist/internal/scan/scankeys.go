package scan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// The scan refuses a key written twice in one mapping as yaml.v3 does when
// it decodes into a Go value: it is unsure of such an entry, which yaml.v3
// then parses, and Parse reports it (duplicates.go). The keys of the
// mappings being read are kept innermost last: a small mapping's are
// compared one by one, a larger one's are hashed.

// keyCheck is the keys of the mappings of an entry being scanned.
type keyCheck struct {
	sets []keySet // the mappings being read, innermost last
	keys []keyRef // the first smallMapping keys of each
	src  []byte   // the list
	text []byte   // escaped keys, decoded
	maps uint32   // mappings begun
	big  hashSet  // the hashes of the other keys
	seed uint64   // of the hashes
}

// keySet is the keys of one mapping being read: its first smallMapping
// keys in keyCheck.keys (from on), the others hashed in keyCheck.big.
type keySet struct {
	from, n int32
	id      uint32 // tells its hashes apart in keyCheck.big
	// seen has a bit set for each key kept in keyCheck.keys (headBit): a
	// key whose bit is not set is none of them, and is compared with none.
	seen uint64
}

// smallMapping is the most keys a mapping has for the scan to compare a
// key with each of them.
const smallMapping = 8

// maxKept is the most slots keyCheck.big keeps from one entry to the
// next: a larger table is dropped rather than cleared.
const maxKept = 1 << 12

// begin records that a mapping starts: the innermost one from now.
func (kc *keyCheck) begin() {
	if kc != nil {
		kc.maps++
		add(&kc.sets, keySet{from: int32(len(kc.keys)), id: kc.maps})
	}
}

// keyRef is a key kept: its first 8 bytes (fewer for a shorter key) and
// length tell most keys apart at once, and where it is: in keyCheck.src,
// or (inText) in keyCheck.text. It holds no pointers: keeping it costs the
// garbage collector nothing.
type keyRef struct {
	head     uint64
	start, n uint32
}

// inText marks a keyRef of keyCheck.text (an escaped key, decoded).
const inText = 1 << 31

// unique records the key k, at src[at:], of the innermost mapping and
// reports whether the mapping did not have it yet. Two keys whose hashes
// meet are taken for the same: the entry goes to yaml.v3, whose reading
// tells. k's capacity goes on past it (it is read, and left out).
func (kc *keyCheck) unique(k []byte, at uint32) bool {
	if len(kc.sets) == 0 {
		return false
	}
	ks := &kc.sets[len(kc.sets)-1]
	if ks.n++; ks.n > smallMapping {
		return kc.uniqueBig(ks, k)
	}
	head := load8(k)
	if bit := headBit(head, len(k)); ks.seen&bit == 0 {
		ks.seen |= bit
	} else {
		for _, o := range kc.keys[ks.from:] {
			if o.head == head && int(o.n) == len(k) && (len(k) <= 8 || bytes.Equal(kc.bytes(o), k)) {
				return false
			}
		}
	}
	add(&kc.keys, keyRef{head, at, uint32(len(k))})
	return true
}

// headBit returns the bit of keySet.seen of a key of length n whose first
// 8 bytes are head: keys alike have the same.
func headBit(head uint64, n int) uint64 {
	return 1 << ((head ^ uint64(n)) * 0x9e3779b97f4a7c15 >> 58)
}

// uniqueEscaped is unique for a quoted key with escapes, t in line.
func (kc *keyCheck) uniqueEscaped(line []byte, t tok) bool {
	start := len(kc.text)
	kc.text = appendScalar(kc.text, line[t.start:t.end], t)
	return kc.unique(kc.text[start:], uint32(start)|inText)
}

// uniqueBig is unique for a mapping of more than smallMapping keys.
func (kc *keyCheck) uniqueBig(ks *keySet, k []byte) bool {
	if kc.seed == 0 {
		kc.seed = rand.Uint64() | 1
	}
	if ks.n == smallMapping+1 {
		for _, o := range kc.keys[ks.from:] {
			kc.big.add(kc.hash(ks, kc.bytes(o)))
		}
	}
	return kc.big.add(kc.hash(ks, k))
}

// bytes returns the key o (with what follows it as its capacity).
func (kc *keyCheck) bytes(o keyRef) []byte {
	if o.start&inText != 0 {
		s := o.start &^ inText
		return kc.text[s : s+o.n]
	}
	return kc.src[o.start : o.start+o.n]
}

// load8 returns the first 8 bytes of k (fewer, when k is shorter), little
// endian. The bytes past k up to its capacity may be read (and left out).
func load8(k []byte) uint64 {
	if cap(k) < 8 {
		return load8Short(k)
	}
	w := binary.LittleEndian.Uint64(k[:8])
	if len(k) < 8 {
		w &= 1<<(8*len(k)) - 1
	}
	return w
}

func load8Short(k []byte) uint64 {
	var w uint64
	for i, c := range k {
		w |= uint64(c) << (8 * i)
	}
	return w
}

// hash returns the hash of key k of the mapping ks (never 0): 8 bytes at
// a time, seeded at random, so that no input can choose its collisions.
// The bytes past k up to its capacity may be read (and left out).
func (kc *keyCheck) hash(ks *keySet, k []byte) uint64 {
	h := kc.seed ^ uint64(ks.id)<<32 ^ uint64(len(k))
	for ; len(k) >= 8; k = k[8:] {
		h = mix(h ^ binary.LittleEndian.Uint64(k))
	}
	return mix(h^load8(k)) | 1
}

func mix(h uint64) uint64 {
	hi, lo := bits.Mul64(h, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// end forgets the keys of the innermost mapping, read to its end.
func (kc *keyCheck) end() {
	if kc != nil && len(kc.sets) > 0 {
		kc.keys = kc.keys[:kc.sets[len(kc.sets)-1].from]
		kc.sets = kc.sets[:len(kc.sets)-1]
	}
}

// reset forgets every key, for the next entry of src.
func (kc *keyCheck) reset(src []byte) {
	if kc != nil {
		kc.src = src
		kc.sets, kc.keys, kc.text, kc.maps = kc.sets[:0], kc.keys[:0], kc.text[:0], 0
		kc.big.reset()
	}
}

// add appends v to *list. While it has room, only the list's length is
// written, not its pointer again: a pointer written while the garbage
// collector runs costs a write barrier (append writes it every time).
func add[T any](list *[]T, v T) {
	if n := len(*list); n < cap(*list) {
		*list = (*list)[:n+1]
		(*list)[n] = v
		return
	}
	*list = append(*list, v)
}

// addBytes is add for the bytes of b.
func addBytes(list *[]byte, b []byte) {
	n := len(*list)
	if cap(*list)-n < len(b) {
		*list = slices.Grow(*list, len(b))
	}
	*list = (*list)[:n+len(b)]
	copy((*list)[n:], b)
}

// hashSet is a set of hashes (never 0) by open addressing, reused from
// entry to entry.
type hashSet struct {
	slots []uint64 // a power of two of them, 0 for none
	n     int
}

// maxProbes bounds the slots add looks at: beyond, it answers as for a
// hash the set has (the scan is unsure, yaml.v3 reads the entry), so that
// the work stays linear whatever the hashes.
const maxProbes = 32

// add adds h and reports whether the set did not have it.
func (hs *hashSet) add(h uint64) bool {
	if 2*(hs.n+1) > len(hs.slots) {
		hs.grow()
	}
	mask := uint64(len(hs.slots) - 1)
	for i, p := h>>32&mask, 0; p < maxProbes; i, p = (i+1)&mask, p+1 {
		switch hs.slots[i] {
		case 0:
			hs.slots[i] = h
			hs.n++
			return true
		case h:
			return false
		}
	}
	return false
}

func (hs *hashSet) grow() {
	old := hs.slots
	hs.slots, hs.n = make([]uint64, max(64, 2*len(old))), 0
	for _, h := range old {
		if h != 0 {
			hs.add(h)
		}
	}
}

func (hs *hashSet) reset() {
	switch {
	case len(hs.slots) > maxKept:
		hs.slots, hs.n = nil, 0
	case hs.n > 0:
		clear(hs.slots)
		hs.n = 0
	}
}
