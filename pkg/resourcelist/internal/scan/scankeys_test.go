package scan

import "testing"

// The scan's hash set tells a hash it has from one it has not, and gives
// up (as for one it has) past maxProbes slots, so that hashes chosen to
// meet cost no more than a fallback to yaml.v3.
func TestHashSet(t *testing.T) {
	t.Parallel()
	var hs hashSet
	for round := range 2 {
		for i := uint64(1); i <= 1000; i++ {
			if !hs.add(i<<32 | 1) {
				t.Fatalf("round %d: %d is new, add says it is not", round, i)
			}
		}
		for i := uint64(1); i <= 1000; i++ {
			if hs.add(i<<32 | 1) {
				t.Fatalf("round %d: %d is there, add says it is new", round, i)
			}
		}
		hs.reset()
	}
	var same hashSet // every hash in one slot
	for i := uint64(1); i <= maxProbes; i++ {
		if !same.add(i<<1 | 1) {
			t.Fatalf("hash %d of %d in one slot is refused", i, maxProbes)
		}
	}
	if same.add(maxProbes<<2 | 1) {
		t.Errorf("a hash past %d probes is taken", maxProbes)
	}
}
