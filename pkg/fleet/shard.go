package fleet

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// A fleet too large for one machine is rendered by N workers, each a run
// with its own Shard and its own copy of the output: every run plans the
// whole fleet (the plan's problems are every shard's), renders the
// variants of its shard and prunes the packages of its shard, so that no
// two shards touch one package and the union of their changes is what a
// whole run makes. A variant's shard is that of its downstream folder; a
// package a variant of the run owns (whose variant moved it), or one a
// variant's new package lies inside or around, is that variant's shard's;
// any other package its own folder's.

// Shard is one of N shares of a fleet, K (0 ≤ K < N). The zero Shard is
// the whole fleet.
type Shard struct{ K, N int }

// Whole reports whether the shard is the whole fleet (no --shard).
func (s Shard) Whole() bool { return s.N == 0 }

// String writes the shard as --shard takes it: K/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// ShardOf returns the shard of N a downstream folder (<repo>/<package>, as
// in the output) falls in: its FNV-1a 64 hash modulo N.
func ShardOf(folder string, n int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(folder))
	return int(h.Sum64() % uint64(n))
}

// ParseShard reads a shard as --shard gives it: K/N, or N alone with K
// from index (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX, "" when it
// is unset). Its error says what is wrong and what is expected.
func ParseShard(s, index string) (Shard, error) {
	ks, ns, pair := strings.Cut(s, "/")
	if !pair {
		ks, ns = index, s
	}
	n, err := strconv.Atoi(ns)
	if err != nil {
		return Shard{}, fmt.Errorf("%q is not K/N (shard K of N, 0 ≤ K < N) nor N (K from JOB_COMPLETION_INDEX)", s)
	}
	if n < 1 {
		return Shard{}, fmt.Errorf("N is %d: it takes 1 or more shards", n)
	}
	if !pair && index == "" {
		return Shard{}, fmt.Errorf("%d alone takes K from JOB_COMPLETION_INDEX, which is not set: give K/%d", n, n)
	}
	k, err := strconv.Atoi(ks)
	switch {
	case err != nil && pair:
		return Shard{}, fmt.Errorf("%q is not K/N: K is %q, not a number from 0 to N-1", s, ks)
	case err != nil:
		return Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX is %q: it takes a number from 0 to %d", ks, n-1)
	case k < 0 || k >= n:
		return Shard{}, fmt.Errorf("K is %d: it takes 0 to %d (0 ≤ K < N)", k, n-1)
	}
	return Shard{K: k, N: n}, nil
}

// of returns the shard a variant falls in: its downstream folder's, or 0
// for a variant without a valid downstream. The plan keeps it as the
// job's shard.
func (s Shard) of(j *job) int {
	if s.Whole() {
		return 0
	}
	d := &j.downstream
	if !j.hasDownstream || d.Repo == "" || d.Package == "" || len(downstreamErrs(d)) > 0 {
		return 0
	}
	return ShardOf(j.path, s.N)
}

// mine reports whether a variant is this shard's to render.
func (s Shard) mine(j *job) bool { return s.Whole() || j.shard == s.K }

// holds reports whether an existing package no variant of the run owns is
// this shard's, by its folder.
func (s Shard) holds(folder string) bool { return s.Whole() || ShardOf(folder, s.N) == s.K }

// prunes reports whether an existing package the run drops is this
// shard's to drop: its variant's shard's (the variant moved it); else, when
// a package of the run lies inside or around it (its write moves it), that
// variant's shard's; else its own folder's.
func (r *runner) prunes(d *drop) bool {
	s := r.opts.Shard
	switch {
	case s.Whole():
		return true
	case d.job != nil:
		return s.mine(d.job)
	}
	if mover := r.mover(d.st.Path); mover != nil {
		return s.mine(mover)
	}
	return s.holds(d.st.Path)
}

// mover returns the first valid variant of the plan whose package lies
// inside, or around, the folder p; nil for none.
func (r *runner) mover(p string) *job {
	pl := r.places
	nested := len(below(pl.paths, p)) > 0
	for dir := parent(p); dir != "" && !nested; dir = parent(dir) {
		nested = pl.wanted[dir]
	}
	if !nested {
		return nil
	}
	for _, j := range r.plan.jobs {
		if len(j.errs) == 0 && j.path != "" && (kptpkg.Inside(j.path, p) || kptpkg.Inside(p, j.path)) {
			return j
		}
	}
	return nil
}

// reported returns the variants the report names: the shard's, and every
// variant the plan stalled (the plan's problems are every shard's).
func (r *runner) reported() []*Variant {
	var out []*Variant
	for _, j := range r.plan.jobs {
		if r.opts.Shard.mine(j) || j.stalled() {
			out = append(out, j.v)
		}
	}
	return out
}

// shardStatus returns the status a run writes: the whole plan's, and for
// a shard, first its head (K/N and the fleet's digest), then the plan's
// entries, each variant another shard renders marked with that shard
// instead of its status (a set's status is the plan's: every shard has it).
func (r *runner) shardStatus() []*yaml.RNode {
	sh := r.opts.Shard
	if sh.Whole() {
		return r.status(r.plan.jobs)
	}
	var mine []*job
	for _, j := range r.plan.jobs {
		if j.shard == sh.K {
			mine = append(mine, j)
		}
	}
	own := r.status(mine)
	out := make([]*yaml.RNode, 0, 1+len(r.plan.sets)+len(r.plan.jobs))
	out = append(out, shardHead(sh, r.fleetDigest()))
	out = append(out, own[:len(r.plan.sets)]...)
	own = own[len(r.plan.sets):]
	others := markers{}
	for _, j := range r.plan.jobs {
		if k := j.shard; k != sh.K {
			out = append(out, others.marked(j, Shard{K: k, N: sh.N}))
			continue
		}
		out, own = append(out, own[0]), own[1:]
	}
	return out
}

// shardHead is the first document of a shard's status.
func shardHead(sh Shard, digest string) *yaml.RNode {
	spec := mapping("shard", sh.String(), "fleet", digest)
	return yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("apiVersion"), str(v1alpha1.TypeFleetShard.APIVersion), str("kind"), str(v1alpha1.TypeFleetShard.Kind),
		str("metadata"), mapping("name", fmt.Sprintf("%d-of-%d", sh.K, sh.N)), str("spec"), spec,
	}})
}

// markers make the status entries of the variants other shards render:
// the variant's type and names, marked with its shard, and no status.
// Their nodes but the names are shared among the entries (a shard of a
// large fleet writes the others' by the hundred thousand); nothing
// changes them once made.
type markers map[string]*yaml.Node

func (m markers) marked(j *job, sh Shard) *yaml.RNode {
	head := m.node("head", func() *yaml.Node {
		return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("apiVersion"), str(porch.TypePackageVariant.APIVersion),
			str("kind"), str(porch.TypePackageVariant.Kind), str("metadata")}}
	})
	ann := m.node(sh.String(), func() *yaml.Node { return mapping(v1alpha1.AnnotationShard, sh.String()) })
	md := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{m.node("name", func() *yaml.Node { return str("name") }), str(j.name)}}
	if ns := j.namespace; ns != "" {
		md.Content = append(md.Content, m.node("namespace", func() *yaml.Node { return str("namespace") }), str(ns))
	}
	md.Content = append(md.Content, m.node("annotations", func() *yaml.Node { return str("annotations") }), ann)
	return yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode, Content: append(head.Content[:len(head.Content):len(head.Content)], md)})
}

// node returns the shared node named key, made by make the first time.
func (m markers) node(key string, make func() *yaml.Node) *yaml.Node {
	n, ok := m[key]
	if !ok {
		n = make()
		m[key] = n
	}
	return n
}

// fleetDigest digests what the shards of one fleet share: the tool (its
// salt, the pipelines run or not, the pruning and conflict policy) and the
// plan (every set's and variant's name, file, downstream, spec as
// understood, problems). Shards of different fleets do not merge.
func (r *runner) fleetDigest() string {
	d := kptpkg.NewDigest(kptpkg.LineFraming)
	o := r.opts
	d.Field(o.Salt)
	for _, b := range []bool{o.Render != nil, o.Prune, o.PruneAll, o.TakeUpstream} {
		d.Field(strconv.FormatBool(b))
	}
	list := func(ss []string) {
		d.Field(strconv.Itoa(len(ss)))
		for _, s := range ss {
			d.Field(s)
		}
	}
	for _, s := range r.plan.sets {
		list([]string{"set", s.key(), s.where, s.stalledReason})
		list(s.stalled)
		list(s.targetErrs)
	}
	for _, j := range r.plan.jobs {
		set := ""
		if j.set != nil {
			set = j.set.key()
		}
		list([]string{"variant", j.key(), set, j.where, j.path, string(j.specSum[:])})
		list(j.errs)
		list(j.warns)
	}
	for _, res := range r.plan.results {
		d.Field(res.String())
	}
	return "sha256:" + d.Hex()
}
