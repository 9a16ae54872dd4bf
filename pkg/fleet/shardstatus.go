package fleet

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// ShardStatus is a shard's status file as read: its name (for messages)
// and its documents.
type ShardStatus struct {
	Name string
	Docs []*yaml.RNode
}

// shardFile is a shard's status file with its head read.
type shardFile struct {
	*ShardStatus
	shard Shard
	fleet string
}

// MergeStatus puts together the status files of the N shards of one
// fleet (each once, in any order) and returns the status a whole run
// writes. Files of different fleets, a shard missing or given twice, or a
// file that is not a shard's are refused, all at once, naming the files.
func MergeStatus(files []ShardStatus) ([]*yaml.RNode, error) {
	if len(files) == 0 {
		return nil, errors.New("no status files: give the N files of the fleet's shards")
	}
	var read []*shardFile
	var errs []string
	for i := range files {
		f, err := readShardHead(&files[i])
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		read = append(read, f)
	}
	if len(errs) > 0 {
		return nil, joined(errs)
	}
	byK, err := oneFleet(read)
	if err != nil {
		return nil, err
	}
	return mergeEntries(byK)
}

// readShardHead reads a status file's head: kind FleetShard, spec.shard
// K/N and spec.fleet.
func readShardHead(f *ShardStatus) (*shardFile, error) {
	if len(f.Docs) == 0 || !resourcelist.HeaderOf(f.Docs[0]).Is(v1alpha1.TypeFleetShard.APIVersion, v1alpha1.TypeFleetShard.Kind) {
		return nil, fmt.Errorf("%s: %w: its first document is not a %s (kptkit variants render --shard writes one)", f.Name, errNoShard, v1alpha1.TypeFleetShard.Describe())
	}
	spec := f.Docs[0].Field("spec")
	field := func(name string) string {
		if spec == nil || spec.Value.Field(name) == nil {
			return ""
		}
		return spec.Value.Field(name).Value.YNode().Value
	}
	s := field("shard")
	sh, err := ParseShard(s, "")
	if err != nil || !strings.Contains(s, "/") {
		return nil, fmt.Errorf("%s: %w: spec.shard is %q, not K/N", f.Name, errNoShard, s)
	}
	fleet := field("fleet")
	if fleet == "" {
		return nil, fmt.Errorf("%s: %w: spec.fleet is empty", f.Name, errNoShard)
	}
	return &shardFile{ShardStatus: f, shard: sh, fleet: fleet}, nil
}

// oneFleet checks that the files are the N shards of one fleet, each
// once, and returns them by K.
func oneFleet(files []*shardFile) ([]*shardFile, error) {
	fleets := map[string][]string{}
	for _, f := range files {
		k := fmt.Sprintf("%s, %d shards", f.fleet, f.shard.N)
		fleets[k] = append(fleets[k], f.Name)
	}
	if len(fleets) > 1 {
		var groups []string
		for _, k := range sortedKeys(fleets) {
			groups = append(groups, strings.Join(fleets[k], ", ")+" ("+k+")")
		}
		return nil, fmt.Errorf("the files are of different fleets: %s: merge the files of one run of the shards", strings.Join(groups, "; "))
	}
	n := files[0].shard.N
	byK := make([]*shardFile, n)
	var errs []string
	for _, f := range files {
		if prev := byK[f.shard.K]; prev != nil {
			errs = append(errs, fmt.Sprintf("%s and %s are both shard %s: give each shard's file once", prev.Name, f.Name, f.shard))
			continue
		}
		byK[f.shard.K] = f
	}
	for k, f := range byK {
		if f == nil {
			errs = append(errs, fmt.Sprintf("shard %d/%d is missing (variants.status.%d-of-%d.yaml): give all %d shards' files", k, n, k, n, n))
		}
	}
	if len(errs) > 0 {
		return nil, joined(errs)
	}
	return byK, nil
}

// mergeEntries takes each entry from the shard that has its status: the
// one a mark names, or shard 0 (a set's, which every shard has).
func mergeEntries(byK []*shardFile) ([]*yaml.RNode, error) {
	docs := len(byK[0].Docs)
	for _, f := range byK[1:] {
		if len(f.Docs) != docs {
			return nil, fmt.Errorf("%s has %d documents and %s %d: they are not shards of one run", byK[0].Name, docs, f.Name, len(f.Docs))
		}
	}
	var out []*yaml.RNode
	for i := 1; i < docs; i++ {
		owner, err := entryOwner(byK, i)
		if err != nil {
			return nil, err
		}
		out = append(out, byK[owner].Docs[i])
	}
	return out, nil
}

// entryOwner returns the shard whose file holds the status of entry i:
// every file names one entry, the marks name one shard, whose own file
// does not mark it.
func entryOwner(byK []*shardFile, i int) (int, error) {
	want := resourcelist.HeaderOf(byK[0].Docs[i])
	owner, unmarked := -1, 0
	for _, f := range byK {
		h := resourcelist.HeaderOf(f.Docs[i])
		if h.APIVersion != want.APIVersion || h.Kind != want.Kind || h.Namespace != want.Namespace || h.Name != want.Name {
			return 0, fmt.Errorf("%s names %s and %s names %s at document %d: they are not shards of one run", byK[0].Name, want, f.Name, h, i+1)
		}
		mark, ok := h.Annotations[v1alpha1.AnnotationShard]
		if !ok {
			unmarked++
			continue
		}
		sh, err := ParseShard(mark, "")
		if err != nil || sh.N != len(byK) || sh.K == f.shard.K || owner >= 0 && sh.K != owner {
			return 0, fmt.Errorf("%s: %s is marked %s=%q: not a shard of %d other than its own, or not the others' mark", f.Name, h, v1alpha1.AnnotationShard, mark, len(byK))
		}
		owner = sh.K
	}
	if owner < 0 {
		return 0, nil
	}
	if _, ok := resourcelist.HeaderOf(byK[owner].Docs[i]).Annotations[v1alpha1.AnnotationShard]; ok || unmarked != 1 {
		return 0, fmt.Errorf("%s: %s has its status in %d files, not in shard %d/%d's alone", byK[owner].Name, want, unmarked, owner, len(byK))
	}
	return owner, nil
}

// joined is one error of several messages, sorted.
func joined(msgs []string) error {
	slices.Sort(msgs)
	return errors.New(strings.Join(msgs, "; "))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// errNoShard: a status file that is not a shard's.
var errNoShard = errors.New("not a shard's status")
