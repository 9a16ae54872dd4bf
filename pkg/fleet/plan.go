package fleet

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/celexpr"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// plan is what a run does: each set given, expanded, and one job per
// PackageVariant (the sets' children, then those given on their own).
type plan struct {
	// shard is the share of the plan the run renders: the others' variants
	// are kept slim (job.slim).
	shard   Shard
	sets    []*setPlan
	jobs    []*job
	results []result.Result
	// owners are the run's variants by owner key (<namespace>/<name>).
	owners map[string]*job
	// slab is where the next jobs are made (newJob).
	slab []job
}

// jobSlab is how many jobs are made at once: a shard's plan holds the
// fleet's, and the collector marks a slab of them as one object rather
// than each on its own.
const jobSlab = 1024

// newJob returns a zero job, made in the plan's current slab.
func (p *plan) newJob() *job {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]job, 0, jobSlab)
	}
	p.slab = p.slab[:len(p.slab)+1]
	return &p.slab[len(p.slab)-1]
}

// setPlan is a PackageVariantSet given in the run.
type setPlan struct {
	name, namespace, where string
	// stalled holds the problems that stopped the set (reason, messages).
	stalledReason string
	stalled       []string
	// targetErrs are problems of single targets: the others are rendered.
	targetErrs []string
}

func (s *setPlan) key() string { return ownerKey(s.namespace, s.name) }

// job is one PackageVariant to render. A shard's plan holds every
// variant of the fleet, the others' by the hundred thousand: of a variant
// another shard renders, a job keeps only what the plan, the status and
// pruning read (its names, downstream, deletion policy, problems and its
// spec's digest), with no pointer it does not need.
type job struct {
	// ownerKey is the variant's key (<namespace>/<name>); name and
	// namespace share its bytes, repo and package the path's.
	ownerKey, name, namespace string
	downstream                porch.Downstream
	hasDownstream             bool
	deletionPolicy            string
	// shard is the shard the variant falls in (Shard.of).
	shard int
	// specSum is the digest the fleet's takes of the variant (plan.sum).
	specSum [sha256.Size]byte
	set     *setPlan // the set whose child it is; nil for a variant given as such
	where   string
	path    string // <downstream repo>/<downstream package>
	// errs stall the variant (Porch's Stalled=True): it is not rendered.
	errs  []string
	warns []string
	// v is the variant's outcome; nil for another shard's variant the plan
	// did not stall (nothing reports it).
	v *Variant

	// The run's own variants, till rendered: the variant as decoded, its
	// spec as understood (or as its set made it), for the inputs digest
	// (the node itself is not kept), and the upstream it wants. Nil and ""
	// for another shard's.
	pv   *porch.PackageVariant
	spec string
	want *Want
}

func (j *job) key() string { return j.ownerKey }

// variant returns the job's Variant as the plan makes it.
func (j *job) variant() *Variant {
	v := &Variant{Name: j.name, Namespace: keyOf(j.namespace, "").namespace, Where: j.where}
	if j.set != nil {
		v.Set = j.set.name
	}
	if j.hasDownstream {
		v.Repo, v.Package = j.downstream.Repo, j.downstream.Package
	}
	return v
}

// stalled reports whether the plan stalled the variant.
func (j *job) stalled() bool { return j.v != nil && j.v.stalled }

// ownerKey names a variant or set as the owner annotation does:
// <namespace>/<name>, "default" for no namespace.
func ownerKey(namespace, name string) string {
	k := keyOf(namespace, name)
	return k.namespace + "/" + k.name
}

func newPlan(in Input, shard Shard) *plan {
	p := &plan{shard: shard, owners: map[string]*job{}}
	setsGiven := map[objectKey]bool{}
	for i, n := range in.Variants {
		h := resourcelist.HeaderOf(n)
		if h.Is(porch.TypePackageVariantSet.APIVersion, porch.TypePackageVariantSet.Kind) {
			setsGiven[keyOf(h.Namespace, h.Name)] = true
			continue
		}
		if !h.Is(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind) {
			p.results = append(p.results, h.Attach(result.Errorf("%s: %s is neither a %s nor a %s", fileOf(in.VariantFiles, i, "variant"), h,
				porch.TypePackageVariantSet.Describe(), porch.TypePackageVariant.Describe())))
		}
	}
	// A set's children given in the run are reconciled by the set, never
	// rendered on their own.
	childOfGiven := func(h resourcelist.Header) bool {
		set, ok := h.Labels[porch.LabelVariantSet]
		return ok && setsGiven[keyOf(h.Namespace, set)]
	}
	for i, n := range in.Variants {
		h := resourcelist.HeaderOf(n)
		if h.Is(porch.TypePackageVariantSet.APIVersion, porch.TypePackageVariantSet.Kind) {
			p.expand(n, fileOf(in.VariantFiles, i, "variant"), in.Cluster, children(in.Variants, h))
		}
	}
	for i, n := range in.Variants {
		h := resourcelist.HeaderOf(n)
		if h.Is(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind) && !childOfGiven(h) {
			p.add(n, nil, nil, fileOf(in.VariantFiles, i, "variant"))
		}
	}
	p.checkDownstreams()
	p.settle()
	return p
}

// injected reports whether an injector of a variant the run renders names
// an object so.
func (p *plan) injected() func(name string) bool {
	names := map[string]bool{}
	for _, j := range p.rendered() {
		for _, inj := range j.pv.Spec.Injectors {
			names[inj.Name] = true
		}
	}
	return func(name string) bool { return names[name] }
}

// upstreamRepos reports whether a variant the run renders takes its
// upstream from the Repository.
func (p *plan) upstreamRepos() func(objectKey) bool {
	keys := map[objectKey]bool{}
	for _, j := range p.rendered() {
		keys[keyOf(j.namespace, j.want.Repo)] = true
	}
	return func(k objectKey) bool { return keys[k] }
}

// rendered returns the jobs the run renders: its shard's, less those the
// plan stalled.
func (p *plan) rendered() []*job {
	var out []*job
	for _, j := range p.jobs {
		if p.shard.mine(j) && !j.stalled() {
			out = append(out, j)
		}
	}
	return out
}

// settle records the plan's warnings on each variant, and marks stalled
// (Porch's Stalled=True: not rendered) the variants the plan found
// invalid, in the plan itself: every shard reports them.
func (p *plan) settle() {
	for _, j := range p.jobs {
		if j.v == nil {
			if len(j.errs) == 0 {
				continue // another shard's: nothing reports its warnings
			}
			j.v = j.variant()
		}
		for _, w := range j.warns {
			j.v.Results = append(j.v.Results, result.Warningf("%s: PackageVariant %s: %s", j.where, j.key(), w))
		}
		if len(j.errs) > 0 {
			j.v.stalled = true
			j.v.fail(ReasonError, "%s", strings.Join(j.errs, "; "))
		}
	}
}

// children returns the text of the given PackageVariants that are the
// set's children (its label, its namespace): the set reconciles them.
func children(variants []*yaml.RNode, set resourcelist.Header) []string {
	var out []string
	for _, n := range variants {
		h := resourcelist.HeaderOf(n)
		if h.Is(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind) &&
			h.Labels[porch.LabelVariantSet] == set.Name && keyOf(h.Namespace, "") == keyOf(set.Namespace, "") {
			out = append(out, n.MustString())
		}
	}
	return out
}

// expand runs fan-out-variants for one set over the cluster's objects and
// its existing children, and adds a job per child it wants.
func (p *plan) expand(set *yaml.RNode, where string, objects, existing []string) {
	h := resourcelist.HeaderOf(set)
	sp := &setPlan{name: h.Name, namespace: h.Namespace, where: where}
	p.sets = append(p.sets, sp)
	cfg := yaml.NewRNode(yaml.CopyYNode(set.YNode()))
	_ = cfg.PipeE(yaml.SetAnnotation(kptfile.AnnotationPath, where))
	rl, err := resourcelist.ParseDocuments(append(slices.Clip(objects), existing...), cfg.MustString())
	if err != nil {
		sp.stalledReason = "ValidationError"
		sp.stalled = append(sp.stalled, fmt.Sprintf("cannot read the set with the cluster's objects: %v", err))
		p.results = append(p.results, h.Attach(result.Errorf("%s: %s/%s: %s", where, h.Kind, h.Name, sp.stalled[0])))
		return
	}
	// fan-out-variants names the set as its functionConfig; here it is a
	// document of the user's variants file.
	prefix := fmt.Sprintf("functionConfig %s/%s (%s): ", h.Kind, h.Name, where)
	named := fmt.Sprintf("%s: %s/%s: ", where, h.Kind, h.Name)
	s, rs := fanout.SetFrom(krmfn.ConfigOf(rl), rl)
	if s != nil {
		rs = append(rs, fanout.Expand(rl, s, celexpr.DefaultCostLimit)...)
	}
	for _, r := range rs {
		msg := strings.TrimPrefix(r.Message, prefix)
		r.Message = named + msg
		switch {
		case r.Severity == result.SeverityInfo:
			continue
		case r.Severity == result.SeverityWarning:
		case s == nil:
			sp.stalledReason = "ValidationError"
			sp.stalled = append(sp.stalled, msg)
		case r.Field != nil && r.Field.Path == "spec.upstream":
			sp.stalledReason = "UpstreamNotFound"
			sp.stalled = append(sp.stalled, msg)
		default:
			sp.targetErrs = append(sp.targetErrs, msg)
		}
		p.results = append(p.results, r)
	}
	if len(sp.stalled) > 0 {
		return
	}
	for _, it := range rl.Select(func(c resourcelist.Header) bool {
		return c.Is(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind) &&
			c.Labels[porch.LabelVariantSet] == h.Name && keyOf(c.Namespace, "") == keyOf(h.Namespace, "")
	}) {
		text, _ := it.Entry()
		p.add(it.Read(), text, sp, where) // decoded: its nodes are not kept
	}
}

// add decodes and validates one PackageVariant and makes its job; text,
// when not nil, is the variant as its set wrote it.
func (p *plan) add(n *yaml.RNode, text []byte, set *setPlan, where string) {
	j := p.newJob()
	j.set, j.where = set, where
	pv := &porch.PackageVariant{}
	var unknown []decode.Error
	for _, e := range decode.Into(n.YNode(), pv, decode.Options{Unknown: &unknown}, "") {
		j.errs = append(j.errs, e.Error())
	}
	for _, u := range unknown {
		if strings.HasPrefix(u.Path, "spec.") {
			j.warns = append(j.warns, fmt.Sprintf("%s: %s: Porch's PackageVariant has no such field and ignores it", u.Path, u.Msg))
		}
	}
	j.errs = append(j.errs, validate(pv)...)
	j.names(pv)
	j.shard = p.shard.of(j)
	var want Want
	if up := pv.Spec.Upstream; up != nil {
		rev, err := revision(string(up.Revision))
		if err != nil {
			j.errs = append(j.errs, err.Error())
		}
		want = Want{Repo: up.Repo, Package: up.Package, Revision: rev, Workspace: up.WorkspaceName}
		if rev > 0 && up.WorkspaceName != "" {
			j.warns = append(j.warns, fmt.Sprintf("spec.upstream names both revision %d and workspaceName %q: kptkit takes revision %d (Porch now takes the workspace)", rev, up.WorkspaceName, rev))
		}
	}
	j.specSum = p.sum(j, pv.Spec, want.Revision, text)
	if p.shard.mine(j) {
		j.pv, j.want, j.v = pv, &want, j.variant()
	}
	if prev := p.owners[j.key()]; prev != nil {
		msg := fmt.Sprintf("PackageVariant %s is given twice (%s and %s): keep one", j.key(), prev.where, j.where)
		prev.errs = append(prev.errs, msg)
		j.errs = append(j.errs, msg)
	} else {
		p.owners[j.key()] = j
	}
	p.jobs = append(p.jobs, j)
}

// names sets the job's names, downstream and deletion policy from the
// variant, with as few strings as it takes: the plan holds them for every
// variant of the fleet.
func (j *job) names(pv *porch.PackageVariant) {
	md := pv.Metadata
	key := ownerKey(md.Namespace, md.Name)
	// One string holds the key and the path.
	joined := key
	if d := pv.Spec.Downstream; d != nil {
		joined += path.Join(d.Repo, d.Package)
		j.hasDownstream = true
		j.path = joined[len(key):]
	}
	j.ownerKey = joined[:len(key)]
	j.name = j.ownerKey[len(key)-len(md.Name):]
	if md.Namespace != "" {
		j.namespace = j.ownerKey[:len(md.Namespace)]
	}
	switch p := pv.Spec.DeletionPolicy; p {
	case porch.DeletionPolicyDelete:
		j.deletionPolicy = porch.DeletionPolicyDelete
	case porch.DeletionPolicyOrphan:
		j.deletionPolicy = porch.DeletionPolicyOrphan
	default:
		j.deletionPolicy = p
	}
	if d := pv.Spec.Downstream; d != nil {
		j.downstream = *d
		if p := j.path; len(p) == len(d.Repo)+1+len(d.Package) && p[:len(d.Repo)] == d.Repo && p[len(d.Repo)+1:] == d.Package {
			j.downstream = porch.Downstream{Repo: p[:len(d.Repo)], Package: p[len(d.Repo)+1:]}
		}
	}
}

// sum sets the variant's spec as understood, unless another shard renders
// it, and returns what the fleet's digest takes of it: the digest of its
// text as its set wrote it, else of its spec as understood. Every shard
// takes the same (the plan is built whole by each): a shard of a large
// fleet need not write every variant's spec.
func (p *plan) sum(j *job, spec porch.PackageVariantSpec, rev int, text []byte) [sha256.Size]byte {
	if text == nil || p.shard.mine(j) {
		understood := understood(spec, rev)
		if p.shard.mine(j) {
			j.spec = understood
		}
		if text == nil {
			return sha256.Sum256([]byte(understood))
		}
	}
	return sha256.Sum256(text)
}

// slim drops of a variant rendered what only rendering reads (its spec):
// a run of 10,000 would hold every rendered variant's spec till it ends.
// What the status and pruning read of it the job keeps.
func (j *job) slim() {
	j.pv, j.spec = nil, ""
}

// checkDownstreams refuses two variants that write one package, and a
// package inside another's folder: each is an error naming both, and
// neither is written.
func (p *plan) checkDownstreams() {
	byPath := map[string][]*job{}
	for _, j := range p.jobs {
		if j.path != "" && len(j.errs) == 0 {
			byPath[j.path] = append(byPath[j.path], j)
		}
	}
	for _, path := range slices.Sorted(maps.Keys(byPath)) {
		js := byPath[path]
		for i := 1; i < len(js); i++ {
			msg := fmt.Sprintf("PackageVariants %s and %s both write the downstream package %s: give each its own spec.downstream", js[0].key(), js[i].key(), path)
			js[0].errs = append(js[0].errs, msg)
			js[i].errs = append(js[i].errs, msg)
		}
		for dir := parent(path); dir != ""; dir = parent(dir) {
			for _, outer := range byPath[dir] {
				for _, inner := range js {
					msg := fmt.Sprintf("the downstream package %s of PackageVariant %s lies inside the package %s of PackageVariant %s: packages cannot nest", path, inner.key(), dir, outer.key())
					inner.errs = append(inner.errs, msg)
					outer.errs = append(outer.errs, msg)
				}
			}
		}
	}
}

func parent(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}
