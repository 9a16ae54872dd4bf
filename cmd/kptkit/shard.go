package main

import (
	"fmt"
	"os"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/fleet"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

// The shards of `kptkit variants render --shard K/N` and `kptkit variants
// merge-status`: the flag, its status file, and putting the shards' status
// files together (pkg/fleet/shard.go decides what a shard renders).

// jobIndexEnv is where a Kubernetes Indexed Job gives each pod its index.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// shardFlag is --shard: the text given, and the shard it names once
// validated.
type shardFlag struct {
	text  string
	shard fleet.Shard
}

func (c *variantsCmd) addShardFlag() {
	c.StringVar(&c.shard.text, "shard", "", "render shard `K/N` of the fleet (0 ≤ K < N): the variants whose downstream <repo>/<package> hashes to K (FNV-1a 64 mod N), "+
		"and prune only its packages; N alone takes K from "+jobIndexEnv+" (a Kubernetes Indexed Job's); the status goes to OUT/variants.status.K-of-N.yaml")
}

// validateShard reads --shard, K from getenv(JOB_COMPLETION_INDEX) when
// only N is given. In git, shards write their own drafts' refs, but
// --lifecycle published commits to a branch every shard shares: refused.
func (c *variantsCmd) validateShard(getenv func(string) string) error {
	if c.shard.text == "" {
		return nil
	}
	sh, err := fleet.ParseShard(c.shard.text, getenv(jobIndexEnv))
	if err != nil {
		return fmt.Errorf("--shard is %q: %w", c.shard.text, err)
	}
	if c.git.on && c.git.lifecycle == "published" {
		return fmt.Errorf("--lifecycle published is refused with --shard: publishing commits to the deployment branch, which the shards share; publish after gathering them (kptkit rpkg approve)")
	}
	c.shard.shard = sh
	return nil
}

// statusName is the status's place in the output without --status: a
// shard's own file beside the others'.
func (c *variantsCmd) statusName() string {
	if sh := c.shard.shard; !sh.Whole() {
		return fmt.Sprintf("variants.status.%d-of-%d.yaml", sh.K, sh.N)
	}
	return statusFile
}

var mergeStatusCommand = &command{
	name:     "merge-status",
	synopsis: "[-o FILE] FILE...",
	help: `Puts together the status files of the N shards of one fleet (kptkit variants
render --shard K/N writes OUT/variants.status.K-of-N.yaml) into the status a
whole run writes, byte for byte: on stdout, or into -o FILE. It needs every
shard's file once, all of one fleet (the same plan and tool: the digest each
file's head records); a file missing, given twice or of another fleet is
refused, naming the files, and nothing is written.`,
	run: mergeStatus,
}

func mergeStatus(call *call, args []string) error {
	fs := call.flags()
	var output string
	fs.StringVar(&output, "output", "", "write the merged status to `FILE` (default: stdout)")
	fs.StringVar(&output, "o", "", "short for --output `FILE`")
	if err := call.parse(fs, args, -1); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("no status files: give the N files of the fleet's shards (variants.status.K-of-N.yaml)")
	}
	var files []fleet.ShardStatus
	for _, name := range fs.Args() {
		f, err := readShardStatus(name, krmfn.DefaultMaxInput)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	merged, err := fleet.MergeStatus(files)
	if err != nil {
		return fmt.Errorf("cannot merge the status files: %w", err)
	}
	b, err := kptpkg.Encode(merged)
	if err != nil {
		return fmt.Errorf("cannot write the merged status: %w", err)
	}
	if output == "" {
		_, err = call.stdout.Write(b)
		return err
	}
	if _, err := pkgfs.WriteFile(output, b); err != nil {
		return fmt.Errorf("cannot write the merged status: %w", err)
	}
	return nil
}

// readShardStatus reads a status file's documents, at most limit bytes
// of it (krmfn.ReadAtMost: refused once limit+1 bytes are read).
func readShardStatus(name string, limit krmfn.Size) (fleet.ShardStatus, error) {
	f, err := os.Open(name)
	if err != nil {
		return fleet.ShardStatus{}, fmt.Errorf("cannot read the status file: %w", err)
	}
	defer f.Close()
	b, err := krmfn.ReadAtMost(f, limit, "merge-status")
	if err != nil {
		return fleet.ShardStatus{}, fmt.Errorf("cannot read the status file %s: %w", name, err)
	}
	docs, err := kptpkg.Items(name, b)
	if err != nil {
		return fleet.ShardStatus{}, err
	}
	return fleet.ShardStatus{Name: name, Docs: docs}, nil
}
