package scan

import (
	"runtime"
	"strings"
	"testing"
)

// TestLargeBlockBuiltOnce: the value of a large block scalar is built in
// one buffer sized for it and handed over without a copy, so building the
// entry allocates about its text twice (the entry's copy, the value), where
// growing a buffer line by line and copying it into a string allocated
// four times as much. The nodes stay yaml.v3's (checkScan), with each
// chomping indicator, and a block followed by other keys.
func TestLargeBlockBuiltOnce(t *testing.T) {
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2)
	var body strings.Builder
	for body.Len() < 4<<20 {
		body.WriteString("      " + line + "\n")
	}
	for _, chomp := range []string{"", "-", "+"} {
		in := []byte("items:\n- kind: ConfigMap\n  data:\n    big: |" + chomp + "\n" + body.String() + "\n\n    after: x\n")
		checkScan(t, in)
		l, ok := Split(in)
		if !ok || len(l.Entries) != 1 {
			t.Fatalf("chomp %q: split %v, %d entries", chomp, ok, len(l.Entries))
		}
		e := l.Entries[0]
		var s Scanner
		if !s.Scan(in, int(e.Start), int(e.End), l.SeqCol) {
			t.Fatalf("chomp %q: the scan is not sure of the entry", chomp)
		}
		nodes := s.Item().Nodes()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var b Scanner
		n := b.Build(in, int(e.Start), int(e.End), l.SeqCol, int(e.Line), nodes)
		runtime.ReadMemStats(&after)
		if n == nil {
			t.Fatalf("chomp %q: not built", chomp)
		}
		size := int(e.End - e.Start)
		if alloc := int(after.TotalAlloc - before.TotalAlloc); alloc > size*5/2 {
			t.Errorf("chomp %q: building a %d-byte entry allocated %d bytes, more than 2.5 times it", chomp, size, alloc)
		}
	}
}
