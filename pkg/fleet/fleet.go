package fleet

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/result"
)

// Input is what a fleet is rendered from: the variants (PackageVariantSets
// and PackageVariants) and the management cluster's objects, each with the
// file it was read from (for messages; may be shorter than the objects).
// The cluster's objects are their text, one YAML document each (as
// kptpkg.ReadTexts reads them): a fleet's cluster holds an object per
// variant or more, read for their headers and parsed one at a time, only
// when a variant's injector or a Repository needs one.
type Input struct {
	Variants     []*yaml.RNode
	VariantFiles []string
	Cluster      []string
	ClusterFiles []string
}

// Options are the places and the policy a fleet is rendered with.
type Options struct {
	Source Source
	Store  Store
	// Render renders a package's Kptfile pipeline; nil stops after the
	// variant's own changes (no pipeline runs).
	Render Renderer
	Env    krmfn.Env
	// Jobs is how many variants are rendered at once (default: the cores).
	Jobs int
	// Prune removes (or releases, by their deletion policy) the packages of
	// variants this run's sets no longer want; PruneAll also those whose
	// variant is absent from the run (the inputs are the whole fleet).
	Prune, PruneAll bool
	// TakeUpstream resolves an update's conflicts as `kpt pkg update` does:
	// upstream wins. Without it a conflict fails the variant.
	TakeUpstream bool
	// Salt names the tool and runtime (versions): a package rendered by
	// another is rendered again.
	Salt string
	// Planned, when set, is called once the plan and the cluster's index
	// are made, before any variant is rendered: what the run keeps from
	// then on is known (a caller may size the collector's budget by it).
	Planned func()
	// Progress, when set, is called as each variant is done (from several
	// goroutines, one at a time).
	Progress func(done, total int, v *Variant)
	// Shard, unless whole, renders and prunes only the shard's share of
	// the fleet, and the status says which shard of which fleet it is
	// (shard.go).
	Shard Shard

	// Revisions, when set, keeps the downstream packages as Porch's package
	// revisions in the git repositories of the downstream Repositories
	// (variants render --git) instead of in Store.
	Revisions Revisions
	// Lifecycle is what the revisions a run in git writes become: Draft (the
	// default), Proposed or Published.
	Lifecycle string
	// Records are what the last run in git recorded, by variant (Records).
	Records map[string]Record
	// Author is the commits' author where the Repository names none (""
	// for Porch's own); When is the commits' time.
	Author string
	When   time.Time
}

// Renderer runs a package's Kptfile pipeline (pkg/render, as kpt fn
// render): the files, the items as changed by the variant and as read
// before go in; the rendered files come out, or an error carrying the
// failing function's own message.
type Renderer interface {
	Render(files kptpkg.Files, items, before []*yaml.RNode) (kptpkg.Files, result.List, error)
}

// Run renders the fleet. It returns an error only when the Store cannot be
// listed; every other problem is in the Report.
func Run(in Input, opts Options) (*Report, error) {
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	// The plan first: its sets' expansion and the cluster's index each
	// read the cluster's objects, and a large cluster's would not fit both
	// at once in a shard's memory.
	p := newPlan(in, opts.Shard)
	// In folder mode a run reads only the upstream Repositories its
	// variants name; in git it writes into and prunes the downstream ones.
	var used func(objectKey) bool
	if opts.Revisions == nil {
		used = p.upstreamRepos()
	}
	cl, rs := newCluster(in, p.injected(), used)
	rs = append(rs, p.results...)
	r := &runner{opts: opts, cluster: cl, plan: p, upstreams: map[string]*upstreamEntry{}, moved: map[string]bool{}, repos: map[objectKey]*repoState{},
		lineages: map[lineageKey][]byte{}, lineageNodes: map[lineageNodesKey]kptfile.LineageNodes{}}
	var existing []Stored
	if opts.Revisions == nil {
		var err error
		if existing, err = opts.Store.Packages(); err != nil {
			return nil, fmt.Errorf("cannot list the output's packages: %w", err)
		}
	} else {
		var lrs []result.Result
		existing, lrs = r.listRevisions()
		rs = append(rs, lrs...)
	}
	rs = append(rs, r.survey(existing)...)
	if opts.Planned != nil {
		opts.Planned()
	}
	r.runAll()
	report := &Report{Variants: r.reported()}
	if opts.Revisions == nil {
		report.Removed = r.prune()
	} else {
		report.Removed = r.pruneRevisions()
		r.finish(report.Removed)
	}
	report.Results = result.List(rs).Sorted()
	report.Status = r.shardStatus()
	if !opts.Shard.Whole() {
		report.Shard = opts.Shard.String()
	}
	return report, nil
}

// runner renders the plan's jobs.
type runner struct {
	opts    Options
	cluster *cluster
	plan    *plan

	// places is what the run knows of the output before it writes.
	places *places

	mu        sync.Mutex
	upstreams map[string]*upstreamEntry
	// moved are the existing packages a new package was written around.
	moved map[string]bool
	// repos are the downstream Repositories of a run in git.
	repos map[objectKey]*repoState
	// listed are, in git, the Repositories of the packages listed.
	listed map[string]objectKey
	// lineages are the clones' Kptfiles cloneLineage wrote, by what they
	// depend on.
	lineages map[lineageKey][]byte
	// lineageNodes are the lineages porchLineage marshalled, by what they
	// depend on.
	lineageNodes map[lineageNodesKey]kptfile.LineageNodes
	// referrers are, in git, each namespace's revisions named as upstreams
	// (referrersIn), read at the first deletion there.
	referrersMu sync.Mutex
	referrers   map[string]referrers
}

// runAll renders every job on opts.Jobs goroutines, and slims it once
// rendered; each job's outcome goes into its own Variant, so the report's
// order is the plan's whatever the scheduling.
func (r *runner) runAll() {
	jobs := r.plan.rendered()
	next := make(chan *job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(r.opts.Jobs, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				r.process(j)
				// What is read of it from now on, a slim job keeps: the
				// plan's other variants are held till the run ends.
				j.slim()
				if r.opts.Progress != nil {
					mu.Lock()
					done++
					r.opts.Progress(done, len(jobs), j.v)
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
}
