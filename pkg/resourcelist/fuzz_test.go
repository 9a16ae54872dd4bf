package resourcelist_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// FuzzParseWrite: whatever parses, writes; what is written parses again with
// the same items; and an input nobody changed comes out with the same items.
func FuzzParseWrite(f *testing.F) {
	f.Add([]byte(odd))
	f.Add([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - a: b\n  - - c\n"))
	f.Add([]byte(`{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"a":1}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		rl, err := resourcelist.Parse(in)
		if err != nil {
			return
		}
		out, err := rl.Write()
		if err != nil {
			t.Fatalf("cannot write what parsed: %v", err)
		}
		again, err := resourcelist.Parse(out)
		if err != nil {
			t.Fatalf("output does not parse: %v\ninput:\n%s\noutput:\n%s", err, in, out)
		}
		if rl.Len() != again.Len() {
			t.Fatalf("items: %d in, %d out\ninput:\n%s\noutput:\n%s", rl.Len(), again.Len(), in, out)
		}
	})
}
