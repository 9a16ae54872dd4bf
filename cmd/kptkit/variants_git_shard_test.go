package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/fleet"
)

// TestVariantsGitShards: in git, the shards of a fleet run one after the
// other write exactly the refs, commits and trees one whole run writes,
// each shard only its own variants' drafts, and merge-status of their
// status files is the whole run's status; --prune-all in a shard deletes
// only its own shard's drafts; --lifecycle published, a commit on the
// branch every shard shares, is refused with --shard.
func TestVariantsGitShards(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767312000")
	clusters := []string{"edge01", "edge02", "edge03", "edge04", "edge05"}
	whole, sharded := newGitFleet(t, clusters...), newGitFleet(t, clusters...)
	whole.variants("v1", "", clusters...)
	sharded.variants("v1", "", clusters...)
	whole.mustRender()

	mine := map[int][]string{}
	for _, c := range clusters {
		k := fleet.ShardOf(c+"/app", 2)
		mine[k] = append(mine[k], c)
	}
	if len(mine[0]) == 0 || len(mine[1]) == 0 {
		t.Fatalf("the clusters all fall in one shard: %v", mine)
	}
	var statuses []string
	for k := range 2 {
		status := filepath.Join(sharded.dir, "status."+[]string{"0", "1"}[k]+".yaml")
		statuses = append(statuses, status)
		out := sharded.mustRender("--shard", []string{"0/2", "1/2"}[k], "--status", status)
		for _, c := range mine[k] {
			if want := "default/" + c + "-app: created " + c + ".app.packagevariant-1"; !strings.Contains(out, want) {
				t.Errorf("shard %d/2:\n%s\nwant a line %q", k, out, want)
			}
		}
		for _, c := range mine[1-k] {
			if strings.Contains(out, c+".app") {
				t.Errorf("shard %d/2 wrote another shard's variant %s:\n%s", k, c, out)
			}
		}
	}
	for _, c := range clusters {
		if got, want := dump(sharded.deploy[c]), dump(whole.deploy[c]); got != want {
			t.Errorf("%s: the shards wrote\n%s\nthe whole run\n%s", c, got, want)
		}
	}
	merged := filepath.Join(sharded.dir, "merged.yaml")
	if _, stderr, code := runKptkit(t, append([]string{"variants", "merge-status", "-o", merged}, statuses...)...); code != 0 {
		t.Fatalf("merge-status: exit %d: %s", code, stderr)
	}
	if got, want := readFile(t, merged), readFile(t, filepath.Join(whole.dir, "status.yaml")); got != want {
		t.Errorf("merged status:\n%s\nthe whole run's:\n%s", got, want)
	}

	// --prune-all with no variants left: each shard deletes its own drafts.
	sharded.write("variants.yaml", "")
	out := sharded.mustRender("--shard", "0/2", "--status", statuses[0], "--prune-all")
	for _, c := range clusters {
		gone := sharded.deploy[c].Git("for-each-ref", "refs/heads/drafts") == ""
		if want := fleet.ShardOf(c+"/app", 2) == 0; gone != want {
			t.Errorf("%s: draft deleted %v, want %v (shard 0/2 said:\n%s)", c, gone, want, out)
		}
	}

	_, stderr, code := sharded.render("--shard", "1/2", "--lifecycle", "published")
	if want := "--lifecycle published is refused with --shard"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("--lifecycle published --shard: exit %d, stderr %q, want exit 2 and %q", code, stderr, want)
	}
}
