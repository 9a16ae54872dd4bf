package gitrepo

import (
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

// TestObjectCache: objects are kept up to maxSize bytes, the least
// recently used (put or got) dropped first; one larger than maxSize is not
// kept; a put again replaces; Clear drops all.
func TestObjectCache(t *testing.T) {
	obj := func(content string) plumbing.EncodedObject {
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.BlobObject)
		_, _ = o.Write([]byte(content))
		return o
	}
	a, b, c, big := obj("aaaa"), obj("bbbb"), obj("cccc"), obj("0123456789ab")
	kept := func(oc *objectCache) string {
		s := ""
		for _, o := range []plumbing.EncodedObject{a, b, c, big} {
			_, ok := oc.m[o.Hash()]
			s += fmt.Sprint(ok, " ")
		}
		return fmt.Sprint(s, oc.size)
	}
	oc := &objectCache{maxSize: 10}
	var got []string
	oc.Put(a)
	oc.Put(b)
	got = append(got, kept(oc))
	if o, ok := oc.Get(a.Hash()); !ok || o != a {
		t.Fatal("a is not got")
	}
	oc.Put(c) // past 10 bytes: b, the least recently used, goes
	got = append(got, kept(oc))
	oc.Put(big)
	oc.Put(c)
	got = append(got, kept(oc))
	oc.Clear()
	_, ok := oc.Get(a.Hash())
	got = append(got, fmt.Sprint(kept(oc), " ", ok))
	want := []string{"true true false false 8", "true false true false 8", "true false true false 8", "false false false false 0 false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
