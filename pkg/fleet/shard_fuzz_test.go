package fleet_test

import (
	"fmt"
	"testing"

	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// FuzzParseShard reads --shard and JOB_COMPLETION_INDEX as the fuzzer
// writes them: no panic; a shard with 0 ≤ K < N, or an error.
func FuzzParseShard(f *testing.F) {
	for _, s := range [][2]string{{"0/1", ""}, {"2/3", ""}, {"3", "1"}, {"3/3", ""}, {"-1/2", ""}, {"a/b", ""}, {"2", "x"}, {"9223372036854775807/9223372036854775807", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, s, index string) {
		sh, err := fleet.ParseShard(s, index)
		if err == nil && (sh.N < 1 || sh.K < 0 || sh.K >= sh.N) {
			t.Fatalf("ParseShard(%q, %q) = %v without an error", s, index, sh)
		}
		if err == nil && fleet.ShardOf(s, sh.N) >= sh.N {
			t.Fatalf("ShardOf(%q, %d) is not below N", s, sh.N)
		}
	})
}

// FuzzMergeStatus merges two status files as the fuzzer writes them
// (seeded with the shards of a golden case): no panic; merged entries or
// an error.
func FuzzMergeStatus(f *testing.F) {
	head := "apiVersion: fn.kptkit.dev/v1alpha1\nkind: FleetShard\nmetadata:\n  name: %d-of-2\nspec:\n  shard: %d/2\n  fleet: sha256:ab\n---\n"
	set := "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: s\nstatus:\n  conditions: []\n---\n"
	own := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: %s\nstatus:\n  conditions:\n  - type: Ready\n    status: \"True\"\n"
	other := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: %s\n  annotations:\n    kptkit.dev/shard: %d/2\n"
	f.Add([]byte(fmt.Sprintf(head, 0, 0)+set+fmt.Sprintf(own, "a")+"---\n"+fmt.Sprintf(other, "b", 1)),
		[]byte(fmt.Sprintf(head, 1, 1)+set+fmt.Sprintf(other, "a", 0)+"---\n"+fmt.Sprintf(own, "b")))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var files []fleet.ShardStatus
		for i, data := range [][]byte{a, b} {
			name := []string{"a.yaml", "b.yaml"}[i]
			docs, err := kptpkg.Items(name, data)
			if err != nil {
				return
			}
			files = append(files, fleet.ShardStatus{Name: name, Docs: docs})
		}
		merged, err := fleet.MergeStatus(files)
		if err == nil {
			if _, err := kptpkg.Encode(merged); err != nil {
				t.Fatalf("a merged status does not encode: %v", err)
			}
		}
	})
}
