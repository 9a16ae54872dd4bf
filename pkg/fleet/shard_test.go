package fleet_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/upstream"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// TestShardOf holds the hash's test vectors (docs/scale.md lists them):
// FNV-1a 64 of the downstream folder, modulo N. The hashes were computed
// by an independent implementation (FNV's published offset and prime).
func TestShardOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		folder string
		want   map[int]int // N: shard
	}{
		{"a", map[int]int{1: 0, 2: 0, 3: 1, 7: 5, 10: 6}},                   // 0xaf63dc4c8601ec8c
		{"edge01/app", map[int]int{1: 0, 2: 1, 3: 0, 7: 1, 10: 5}},          // 0xc31fc2376500274b
		{"edge02/app", map[int]int{1: 0, 2: 0, 3: 1, 7: 4, 10: 8}},          // 0xa9a068382651cab2
		{"core01/platform/app", map[int]int{1: 0, 2: 1, 3: 2, 7: 1, 10: 1}}, // 0x17cc85ec39d49769
		{"deployments/edge-cluster-7/workload", map[int]int{2: 0, 3: 2, 7: 3, 10: 8}},
	} {
		got := map[int]int{}
		for n := range c.want {
			got[n] = fleet.ShardOf(c.folder, n)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("ShardOf(%q) (-want +got):\n%s", c.folder, d)
		}
	}
}

// TestParseShard: K/N, N with the index, and every mistake's message.
func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s, index string
		want     fleet.Shard
		err      string
	}{
		{s: "0/1", want: fleet.Shard{K: 0, N: 1}},
		{s: "2/3", want: fleet.Shard{K: 2, N: 3}},
		{s: "3", index: "1", want: fleet.Shard{K: 1, N: 3}},
		{s: "1/3", index: "2", want: fleet.Shard{K: 1, N: 3}}, // K/N wins over the index
		{s: "3/3", err: "K is 3: it takes 0 to 2 (0 ≤ K < N)"},
		{s: "-1/2", err: "K is -1: it takes 0 to 1 (0 ≤ K < N)"},
		{s: "0/0", err: "N is 0: it takes 1 or more shards"},
		{s: "a/b", err: `"a/b" is not K/N (shard K of N, 0 ≤ K < N) nor N (K from JOB_COMPLETION_INDEX)`},
		{s: "a/2", err: `"a/2" is not K/N: K is "a", not a number from 0 to N-1`},
		{s: "", err: `"" is not K/N (shard K of N, 0 ≤ K < N) nor N (K from JOB_COMPLETION_INDEX)`},
		{s: "2", err: "2 alone takes K from JOB_COMPLETION_INDEX, which is not set: give K/2"},
		{s: "2", index: "2", err: "K is 2: it takes 0 to 1 (0 ≤ K < N)"},
		{s: "2", index: "x", err: `JOB_COMPLETION_INDEX is "x": it takes a number from 0 to 1`},
	} {
		got, err := fleet.ParseShard(c.s, c.index)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if d := cmp.Diff(c.err, msg); d != "" {
			t.Errorf("ParseShard(%q, %q) error (-want +got):\n%s", c.s, c.index, d)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("ParseShard(%q, %q) (-want +got):\n%s", c.s, c.index, d)
		}
	}
}

// goldenRun is one run of a golden case (testdata/<case>) over a copy of
// its before/ folder.
type goldenRun struct {
	before, after kptpkg.Files
	report        *fleet.Report
	status        []byte
}

func runGolden(t *testing.T, dir string, sh fleet.Shard) goldenRun {
	t.Helper()
	in := readInput(t, dir)
	flags := string(readTree(t, dir)["flags"])
	store := newMemStore()
	before := readTree(t, filepath.Join(dir, "before"))
	maps.Copy(store.files, before)
	report, err := fleet.Run(in, fleet.Options{
		Source:   &upstream.Source{Folder: readTree(t, filepath.Join(dir, "upstream")), FolderName: "upstream"},
		Store:    store,
		Env:      krmtest.Env(krmtest.Clock, nil),
		Jobs:     2,
		Prune:    true,
		PruneAll: strings.Contains(flags, "prune-all"), TakeUpstream: strings.Contains(flags, "on-conflict-upstream"),
		Salt:  "test",
		Shard: sh,
	})
	if err != nil {
		t.Fatal(err)
	}
	status, err := kptpkg.Encode(report.Status)
	if err != nil {
		t.Fatal(err)
	}
	return goldenRun{before: before, after: store.files, report: report, status: status}
}

// changes returns what a run changed: each file written (its bytes) or
// removed (nil).
func (g goldenRun) changes() map[string][]byte {
	out := map[string][]byte{}
	for f, b := range g.after {
		if was, ok := g.before[f]; !ok || string(was) != string(b) {
			out[f] = b
		}
	}
	for f := range g.before {
		if _, ok := g.after[f]; !ok {
			out[f] = nil
		}
	}
	return out
}

// TestShardsUnion renders each golden case (sets, given variants, moves,
// prune, --prune-all, deletionPolicy orphan, adoption, invalid variants)
// whole and as N = 1, 2, 3 and 7 shards, each over its own copy of the
// output: no file is changed by two shards, the shards' changes put
// together are the whole run's output byte for byte, their variants and
// removals are the whole run's, and their status files merge into the
// whole run's status.
func TestShardsUnion(t *testing.T) {
	t.Parallel()
	cases, err := filepath.Glob("testdata/*/variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		for _, n := range []int{1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(dir), n), func(t *testing.T) {
				t.Parallel()
				shardsUnion(t, dir, n)
			})
		}
	}
}

func shardsUnion(t *testing.T, dir string, n int) {
	whole := runGolden(t, dir, fleet.Shard{})
	union := kptpkg.Files{}
	maps.Copy(union, whole.before)
	by := map[string]int{} // file: the shard that changed it
	var variants, removed []string
	var statuses []fleet.ShardStatus
	for k := range n {
		g := runGolden(t, dir, fleet.Shard{K: k, N: n})
		for f, b := range g.changes() {
			if other, ok := by[f]; ok {
				t.Errorf("%s is changed by shards %d and %d", f, other, k)
			}
			by[f] = k
			if b == nil {
				delete(union, f)
			} else {
				union[f] = b
			}
		}
		for _, v := range g.report.Variants {
			variants = append(variants, v.Namespace+"/"+v.Name+": "+v.String())
		}
		for _, rm := range g.report.Removed {
			removed = append(removed, fmt.Sprint(rm))
		}
		name := fmt.Sprintf("variants.status.%d-of-%d.yaml", k, n)
		docs, err := kptpkg.Items(name, g.status)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, g.status)
		}
		statuses = append(statuses, fleet.ShardStatus{Name: name, Docs: docs})
	}
	if d := cmp.Diff(whole.after, union); d != "" {
		t.Errorf("the shards' output put together (-whole +shards):\n%s", d)
	}
	var wantVariants, wantRemoved []string
	for _, v := range whole.report.Variants {
		wantVariants = append(wantVariants, v.Namespace+"/"+v.Name+": "+v.String())
	}
	for _, rm := range whole.report.Removed {
		wantRemoved = append(wantRemoved, fmt.Sprint(rm))
	}
	slices.Sort(wantVariants)
	wantVariants = slices.Compact(wantVariants)
	slices.Sort(variants)
	variants = slices.Compact(variants) // a stalled variant is every shard's
	slices.Sort(removed)
	if d := cmp.Diff(wantVariants, variants); d != "" {
		t.Errorf("the shards' variants (-whole +shards):\n%s", d)
	}
	if d := cmp.Diff(wantRemoved, removed); d != "" {
		t.Errorf("the shards' removals (-whole +shards):\n%s", d)
	}
	slices.Reverse(statuses) // any order
	merged, err := fleet.MergeStatus(statuses)
	if err != nil {
		t.Fatal(err)
	}
	got, err := kptpkg.Encode(merged)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(whole.status), string(got)); d != "" {
		t.Errorf("the merged status (-whole +merged):\n%s", d)
	}
}

// TestShardPruneAllLeavesOthers: with --prune-all, each shard changes only
// its own packages: those of its variants (their folder's shard), those
// its variants moved from, and the absent variants' packages whose folder
// falls in it.
func TestShardPruneAllLeavesOthers(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "prune-all")
	whole := runGolden(t, dir, fleet.Shard{})
	variantShard := map[string]string{} // owner: downstream folder
	for _, v := range whole.report.Variants {
		variantShard[v.Namespace+"/"+v.Name] = v.Path()
	}
	for _, n := range []int{2, 3} {
		for k := range n {
			g := runGolden(t, dir, fleet.Shard{K: k, N: n})
			owners := map[string]string{}
			for _, rm := range g.report.Removed {
				owners[rm.Path] = rm.Owner
			}
			for f := range g.changes() {
				folder := packageOf(f, whole.before, g.after)
				mine := fleet.ShardOf(folder, n) == k
				if owner, ok := owners[folder]; ok && variantShard[owner] != "" {
					mine = fleet.ShardOf(variantShard[owner], n) == k
				}
				if !mine {
					t.Errorf("shard %d/%d changed %s, of the package %s, which is not its own", k, n, f, folder)
				}
			}
		}
	}
}

// packageOf returns the folder of the package a file is in: the deepest
// folder above it holding a Kptfile, before or after.
func packageOf(f string, trees ...kptpkg.Files) string {
	for dir := filepath.Dir(f); dir != "."; dir = filepath.Dir(dir) {
		for _, t := range trees {
			if _, ok := t[dir+"/Kptfile"]; ok {
				return dir
			}
		}
	}
	return ""
}

// TestMergeStatusRefuses: files of two fleets, a shard missing or given
// twice, a file that is not a shard's: refused, naming the files.
func TestMergeStatusRefuses(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "moves")
	read := func(sh fleet.Shard, name string) fleet.ShardStatus {
		g := runGolden(t, dir, sh)
		docs, err := kptpkg.Items(name, g.status)
		if err != nil {
			t.Fatal(err)
		}
		return fleet.ShardStatus{Name: name, Docs: docs}
	}
	s0, s1, s2 := read(fleet.Shard{K: 0, N: 3}, "s0.yaml"), read(fleet.Shard{K: 1, N: 3}, "s1.yaml"), read(fleet.Shard{K: 2, N: 3}, "s2.yaml")
	other := read(fleet.Shard{K: 1, N: 2}, "other.yaml")
	whole := read(fleet.Shard{}, "whole.yaml")
	s1again := s1
	s1again.Name = "s1-again.yaml"
	// s1 with an entry of shard 0 unmarked, and with its last entry gone.
	unmarked := fleet.ShardStatus{Name: "unmarked.yaml", Docs: kptpkg.Copy(s1.Docs)}
	entry := ""
	for _, d := range unmarked.Docs {
		if d.GetAnnotations()["kptkit.dev/shard"] == "0/3" {
			entry = d.GetName()
			if _, err := d.Pipe(yaml.ClearAnnotation("kptkit.dev/shard")); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	short := fleet.ShardStatus{Name: "short.yaml", Docs: s1.Docs[:len(s1.Docs)-1]}
	fleetDigest := func(s fleet.ShardStatus) string {
		return s.Docs[0].Field("spec").Value.Field("fleet").Value.YNode().Value
	}
	for _, c := range []struct {
		name  string
		files []fleet.ShardStatus
		err   string
	}{
		{"none", nil, "no status files: give the N files of the fleet's shards"},
		{"missing", []fleet.ShardStatus{s0, s2}, "shard 1/3 is missing (variants.status.1-of-3.yaml): give all 3 shards' files"},
		{"twice", []fleet.ShardStatus{s0, s1, s1again, s2}, "s1.yaml and s1-again.yaml are both shard 1/3: give each shard's file once"},
		{"twice and missing", []fleet.ShardStatus{s1, s1again, s2}, "s1.yaml and s1-again.yaml are both shard 1/3: give each shard's file once; shard 0/3 is missing (variants.status.0-of-3.yaml): give all 3 shards' files"},
		{"two fleets", []fleet.ShardStatus{s0, s1, s2, other},
			"the files are of different fleets: other.yaml (" + fleetDigest(other) + ", 2 shards); s0.yaml, s1.yaml, s2.yaml (" + fleetDigest(s0) + ", 3 shards): merge the files of one run of the shards"},
		{"unmarked", []fleet.ShardStatus{s0, unmarked, s2}, "s0.yaml: PackageVariant/" + entry + " has its status in 2 files, not in shard 0/3's alone"},
		{"short", []fleet.ShardStatus{s0, short, s2}, fmt.Sprintf("s0.yaml has %d documents and short.yaml %d: they are not shards of one run", len(s0.Docs), len(short.Docs))},
		{"whole", []fleet.ShardStatus{whole, s0}, "whole.yaml: not a shard's status: its first document is not a FleetShard (fn.kptkit.dev/v1alpha1) (kptkit variants render --shard writes one)"},
	} {
		_, err := fleet.MergeStatus(c.files)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if d := cmp.Diff(c.err, msg); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// TestShardInvalidDownstream: a variant without a valid downstream (none,
// no package, a reserved name) is shard 0's: its status is in shard 0's
// file, and every other shard marks it 0/N; every shard reports it.
func TestShardInvalidDownstream(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "validation")
	invalid := []string{"empty", "everything-wrong", "reserved-names"}
	for _, n := range []int{2, 7} {
		for k := range n {
			g := runGolden(t, dir, fleet.Shard{K: k, N: n})
			docs, err := kptpkg.Items("status.yaml", g.status)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, d := range docs {
				if slices.Contains(invalid, d.GetName()) {
					got[d.GetName()] = d.GetAnnotations()["kptkit.dev/shard"]
					if d.Field("status") == nil && k == 0 {
						t.Errorf("shard 0/%d: %s has no status", n, d.GetName())
					}
				}
			}
			want := map[string]string{}
			for _, name := range invalid {
				want[name] = ""
				if k > 0 {
					want[name] = fmt.Sprintf("0/%d", n)
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("shard %d/%d: the marks of the variants without a valid downstream (-want +got):\n%s", k, n, d)
			}
			var reported []string
			for _, v := range g.report.Variants {
				if slices.Contains(invalid, v.Name) && v.Outcome == fleet.Failed {
					reported = append(reported, v.Name)
				}
			}
			if len(reported) != len(invalid) || !g.report.Failed() {
				t.Errorf("shard %d/%d reports %v of %v, failed %v", k, n, reported, invalid, g.report.Failed())
			}
		}
	}
}
