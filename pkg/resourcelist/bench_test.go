package resourcelist_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// benchLists are the inputs of the reading benchmarks: kpt's package of
// Deployments (mappings of a few keys, krmtest.Package), and ConfigMaps
// with 40 data keys each (mappings of many keys).
func benchLists() map[string][]byte {
	return map[string][]byte{
		"package/10000": krmtest.Package(10000, ""),
		"wide/2000":     wideList(2000, 40),
	}
}

// wideList returns a ResourceList of n ConfigMaps with keys data entries.
func wideList(n, keys int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-%d\n    annotations:\n      config.kubernetes.io/path: 'cm/%d.yaml'\n  data:\n", i, i)
		for k := range keys {
			fmt.Fprintf(&b, "    KEY_%d: \"value %d\"\n", k, k)
		}
	}
	return []byte(b.String())
}

// BenchmarkParse reads a list and every item's header, as a function that
// selects does: the lazy reading's fast path.
func BenchmarkParse(b *testing.B) {
	for name, in := range benchLists() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			defer krmtest.CPU(b)()
			for b.Loop() {
				rl, err := resourcelist.Parse(in)
				if err != nil {
					b.Fatal(err)
				}
				rl.Select(func(resourcelist.Header) bool { return true })
			}
		})
	}
}

// BenchmarkRead reads a list and the nodes of every item, as a function
// that reads every item once does.
func BenchmarkRead(b *testing.B) {
	for name, in := range benchLists() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			defer krmtest.CPU(b)()
			for b.Loop() {
				rl, err := resourcelist.Parse(in)
				if err != nil {
					b.Fatal(err)
				}
				for _, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
					it.Read()
				}
			}
		})
	}
}
