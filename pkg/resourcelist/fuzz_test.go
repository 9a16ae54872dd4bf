package resourcelist_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// FuzzParseWrite: whatever parses, writes; what is written parses again with
// the same items (so with no key written twice); an input nobody changed
// comes out with the same items; and an input refused for a key written
// twice says so with an error result for each.
func FuzzParseWrite(f *testing.F) {
	f.Add([]byte(odd))
	f.Add([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - a: b\n  - - c\n"))
	f.Add([]byte(`{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"a":1}]}`))
	f.Add([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {a: 1, a: 2}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rl, err := resourcelist.Parse(in)
		if dup := (*resourcelist.DuplicateKeysError)(nil); errors.As(err, &dup) {
			// Refused for keys written twice: a result for each, in yaml.v3's words.
			if len(dup.Results) == 0 {
				t.Fatalf("duplicate keys without a result\ninput:\n%s", in)
			}
			for _, r := range dup.Results {
				if !strings.Contains(r.Message, "already defined at line") || r.Severity != result.SeverityError {
					t.Fatalf("result %+v\ninput:\n%s", r, in)
				}
			}
		}
		if err != nil {
			return
		}
		out, err := rl.Write()
		if err != nil {
			t.Fatalf("cannot write what parsed: %v", err)
		}
		if app, err := rl.AppendText([]byte("held\n")); err != nil || string(app) != "held\n"+string(out) {
			t.Fatalf("AppendText = %q, %v; want what Write writes after what the buffer held\ninput:\n%s", app, err, in)
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
