package scan_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// BenchmarkScan splits the list kpt sends for a package of 50 Deployments
// (krmtest.Package: its Kptfile and package context too) and scans every item's
// entry in the same pass, as the lazy reading does before a function runs:
// the cost per line of SplitScan, what the scan read of each item included.
func BenchmarkScan(b *testing.B) {
	in := krmtest.Package(50, "")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var s scan.Scanner
	for b.Loop() {
		l, ok := scan.SplitScan(in, &s)
		if !ok {
			b.Fatal("not split")
		}
		for i := range l.Entries {
			if it, _ := l.Item(i); it == nil {
				b.Fatal("not sure")
			}
		}
	}
}

// BenchmarkScanSplitFirst is BenchmarkScan as the lazy reading does it for
// a large list, whose entries are shared among goroutines: Split, then
// Scanner.Scan of every entry, and what it read (Scanner.Item).
func BenchmarkScanSplitFirst(b *testing.B) {
	in := krmtest.Package(50, "")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var s scan.Scanner
	for b.Loop() {
		l, ok := scan.Split(in)
		if !ok {
			b.Fatal("not split")
		}
		s.NoTabs = l.NoTabs
		for _, e := range l.Entries {
			if !s.Scan(in, int(e.Start), int(e.End), l.SeqCol) {
				b.Fatal("not sure")
			}
			s.Item()
		}
	}
}
