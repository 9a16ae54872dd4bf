package scan

import "testing"

// TestSplitScanHoldsNoList: a Scanner SplitScan has read a list with (kept
// for the next, as package resourcelist keeps a few) holds nothing of it:
// its key check has let the list go, and what it kept of the items went to
// the list.
func TestSplitScanHoldsNoList(t *testing.T) {
	t.Parallel()
	in := []byte("apiVersion: v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata: {name: a, labels: {x: y}}\n- kind: B\n")
	var s Scanner
	l, ok := SplitScan(in, &s)
	if !ok || !l.Scanned() {
		t.Fatal("SplitScan is not sure of the list")
	}
	if s.keys.src != nil || len(s.kept.items) > 0 || len(s.kept.text) > 0 || len(s.kept.kvs) > 0 {
		t.Errorf("the Scanner holds the list (%d bytes) or its items (%d)", len(s.keys.src), len(s.kept.items))
	}
	if it, _ := l.Item(0); it == nil || it.Name() != "a" || it.Labels()["x"] != "y" {
		t.Errorf("item 0 read %+v", it)
	}
}
