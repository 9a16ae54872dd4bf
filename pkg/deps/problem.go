package deps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/deps/solver"
)

// node is one package as the solver sees it: its candidates (highest
// version first; an installed version the catalog lacks is put in its
// place; a skipped package's "skip" comes last) and what it is known for.
type node struct {
	name      string
	pkg       *Package // nil when no catalog entry could be used
	cands     []*Version
	skip      int // the index of "skip", or -1
	installed int // the index of the installed version, or -1
	latest    int // the index of latestVersion, or -1
	missing   string
	// needed is what "no range" allows, narrowed to the versions that
	// provide the APIs the package was discovered for: what it may be,
	// ranges aside.
	needed solver.Set
}

func (n *node) size() int {
	if n.skip >= 0 {
		return len(n.cands) + 1
	}
	return len(n.cands)
}

// real returns every candidate but "skip".
func (n *node) real() solver.Set {
	s := solver.All(n.size())
	if n.skip >= 0 {
		s = s.Without(n.skip)
	}
	return s
}

func (n *node) version(i int) *Version {
	if i < 0 || i >= len(n.cands) {
		return nil
	}
	return n.cands[i]
}

// problem turns a Request into the solver's terms: packages become numbered
// nodes, ranges become candidate sets, and every constraint becomes an
// external incompatibility whose ID indexes cons, for explanations.
type problem struct {
	req       *Request
	pins      map[string]string // package → repository chosen by a PackageInstall
	nodes     []*node           // 0 is the root
	byName    map[string]int
	cons      []constraint
	pending   []*solver.Incompat // incompatibilities of nodes made since last asked
	own       []*solver.Incompat // every node's own incompatibilities, for each new search
	deps      map[depKey]*solver.Incompat
	masks     map[maskKey]solver.Set
	roots     map[int][]int  // node → the constraints roots put on it
	holdersOn map[int][]held // node → the ranges installed packages hold on it
	initial   []*solver.Incompat
	chooser   Chooser
	effective map[*Version][]v1alpha1.Dependency // depsOf, made once per version
	rootIndex map[int]int                        // a root's constraint → its index in Request.Roots
}

// held is a range an installed package holds on another.
type held struct {
	pkg  int
	name string
	rng  string
}

type depKey struct {
	pkg int
	dep string
	rng string
}

type maskKey struct {
	pkg int
	rng string
}

func newProblem(req *Request, pins map[string]string) *problem {
	p := &problem{req: req, pins: pins, byName: map[string]int{}, deps: map[depKey]*solver.Incompat{},
		masks: map[maskKey]solver.Set{}, roots: map[int][]int{}, holdersOn: map[int][]held{},
		chooser: req.chooser(), effective: map[*Version][]v1alpha1.Dependency{}, rootIndex: map[int]int{}}
	p.nodes = append(p.nodes, &node{name: "(root)", skip: -1, installed: -1, latest: -1})
	return p
}

// Size implements solver.Source.
func (p *problem) Size(id int) int {
	if id == 0 {
		return 1
	}
	return p.nodes[id].size()
}

// Prefer implements solver.Source: the installed version (it moves only
// when something needs it to); when no range is put on the package (the
// APIs it must provide aside), its latestVersion; else the highest version;
// "skip" last.
func (p *problem) Prefer(id int, allowed solver.Set, why []*solver.Incompat) int {
	n := p.nodes[id]
	if n.installed >= 0 && allowed.Has(n.installed) {
		return n.installed
	}
	real := allowed.And(n.real())
	if real.Empty() {
		if n.skip >= 0 && allowed.Has(n.skip) {
			return n.skip
		}
		return -1
	}
	if n.latest >= 0 && real.Has(n.latest) && !p.ranged(id, why) {
		return n.latest
	}
	return real.First()
}

// ranged reports whether one of the constraints that narrowed a package is
// a range on it.
func (p *problem) ranged(id int, why []*solver.Incompat) bool {
	for _, in := range why {
		if in.ID >= 0 && in.ID < len(p.cons) {
			c := p.cons[in.ID]
			if c.target == id && c.rng != "" && c.kind <= kindHolder {
				return true
			}
		}
	}
	return false
}

// Dependencies implements solver.Source: "id at the versions carrying this
// dependency needs dep within its range", one incompatibility per distinct
// dependency, plus those of packages first met here.
func (p *problem) Dependencies(id, v int) []*solver.Incompat {
	n := p.nodes[id]
	ver := n.version(v)
	if ver == nil {
		return p.drain()
	}
	var out []*solver.Incompat
	for _, d := range ver.Deps {
		if d.Repo != "" && p.pins[d.Package] == "" {
			if _, made := p.byName[d.Package]; !made {
				p.pins[d.Package] = d.Repo
			}
		}
		out = append(out, p.dependency(id, d.Package, d.Version))
	}
	for _, u := range p.uses(id, ver) {
		out = append(out, p.usesAPI(id, u))
	}
	return append(out, p.drain()...)
}

// drain hands over the constraints of the packages made since last asked.
func (p *problem) drain() []*solver.Incompat {
	out := p.pending
	p.pending = nil
	return out
}

// dependency is "id, at every version that carries this dependency, needs
// dep within rng", made once.
func (p *problem) dependency(id int, dep, rng string) *solver.Incompat {
	key := depKey{pkg: id, dep: dep, rng: rng}
	if in, ok := p.deps[key]; ok {
		return in
	}
	n := p.nodes[id]
	var same []int
	for i, c := range n.cands {
		if hasDep(c, dep, rng) {
			same = append(same, i)
		}
	}
	d := p.node(dep)
	vers := solver.Of(n.size(), same...)
	in := p.external(constraint{kind: kindDep, target: d, byPkg: id, by: n.name, vers: vers, rng: rng},
		solver.Require(id, vers), solver.Forbid(d, p.mask(d, rng)))
	p.deps[key] = in
	return in
}

// use is an API a version uses and the package chosen to provide it.
type use struct {
	api      v1alpha1.RequiredAPI
	provider string
}

// uses returns the APIs a version uses whose provider could be chosen,
// each with its provider; the others are reported by apiProblems once the
// plan is made.
func (p *problem) uses(id int, ver *Version) []use {
	var out []use
	for _, a := range ver.ReqAPIs {
		if pick, _ := p.provider(a); pick != "" && pick != p.nodes[id].name {
			out = append(out, use{api: a, provider: pick})
		}
	}
	return out
}

// provider chooses the package that provides an API: "" and "" when no
// catalog package does, "" and why when it cannot be chosen.
func (p *problem) provider(a v1alpha1.RequiredAPI) (string, string) {
	found := p.req.index().Find(apiOf(a))
	if len(found) == 0 {
		return "", ""
	}
	return p.chooser.Choose(a.Group, found)
}

func apiOf(a v1alpha1.RequiredAPI) discover.API {
	return discover.API{Group: a.Group, Kind: a.Kind, Resource: a.Resource}
}

// usesAPI is "id, at every version that uses the API, needs the provider at
// a version that provides it", made once.
func (p *problem) usesAPI(id int, u use) *solver.Incompat {
	key := depKey{pkg: id, dep: u.provider, rng: "\x00" + u.api.Group + "/" + u.api.Kind + "/" + u.api.Resource}
	if in, ok := p.deps[key]; ok {
		return in
	}
	n := p.nodes[id]
	var same []int
	for i, c := range n.cands {
		if slices.ContainsFunc(c.ReqAPIs, func(a v1alpha1.RequiredAPI) bool { return sameAPI(a, u.api) }) {
			same = append(same, i)
		}
	}
	d := p.node(u.provider)
	dn := p.nodes[d]
	provides := solver.None(dn.size())
	for i, v := range dn.cands {
		if v.ProvidesAPI(u.api.Group, "", u.api.Kind, u.api.Resource) {
			provides = provides.With(i)
		}
	}
	vers := solver.Of(n.size(), same...)
	in := p.external(constraint{kind: kindUses, target: d, byPkg: id, by: n.name, vers: vers, apis: []discover.API{apiOf(u.api)}},
		solver.Require(id, vers), solver.Forbid(d, provides.And(p.mask(d, ""))))
	p.deps[key] = in
	return in
}

func sameAPI(a, b v1alpha1.RequiredAPI) bool {
	return a.Group == b.Group && a.Kind == b.Kind && a.Resource == b.Resource
}

// depsOf returns what a chosen version depends on: its dependencies, and
// one entry per provider of the APIs it uses, with the reason.
func (p *problem) depsOf(id int, ver *Version) []v1alpha1.Dependency {
	if out, ok := p.effective[ver]; ok {
		return out
	}
	out := slices.Clip(ver.Deps)
	at := map[string]int{}
	for _, u := range p.uses(id, ver) {
		if i, ok := at[u.provider]; ok {
			out[i].Reason = strings.TrimSuffix(out[i].Reason, " and more APIs") + " and more APIs"
			continue
		}
		at[u.provider] = len(out)
		reason := "uses " + apiOf(u.api).String()
		if u.api.Reason != "" {
			reason += ": " + u.api.Reason
		}
		out = append(out, v1alpha1.Dependency{Package: u.provider, Reason: reason})
	}
	p.effective[ver] = out
	return out
}

func hasDep(v *Version, dep, rng string) bool {
	for _, d := range v.Deps {
		if d.Package == dep && d.Version == rng {
			return true
		}
	}
	return false
}

// external records a constraint and returns its incompatibility.
func (p *problem) external(c constraint, terms ...solver.Term) *solver.Incompat {
	p.cons = append(p.cons, c)
	return solver.External(len(p.cons)-1, terms...)
}

// node returns the id of a package, making its node on first use: its
// catalog entry, its candidates, and the constraints that come with it
// (installed version, switched off by a parameter or a missing capability).
func (p *problem) node(name string) int {
	if id, ok := p.byName[name]; ok {
		return id
	}
	id := len(p.nodes)
	p.byName[name] = id
	n := &node{name: name, skip: -1, installed: -1, latest: -1}
	p.nodes = append(p.nodes, n)
	n.pkg, n.missing = p.req.Catalog.Find(name, p.pins[name])
	if n.pkg != nil {
		n.cands = append(n.cands, n.pkg.Vers...)
	}
	inst := p.req.Installed[name]
	if inst != nil {
		n.missing = ""
		p.placeInstalled(n, inst)
	}
	if n.pkg != nil && n.pkg.Latest != "" {
		for i, c := range n.cands {
			if c.Raw == n.pkg.Latest {
				n.latest = i
			}
		}
	}
	if inst == nil && (p.req.Policy.Skippable(name, n.requires()) || p.req.forced[name] != "") {
		n.skip = len(n.cands)
	}
	n.needed = p.mask(id, "")
	p.restrict(id, n, inst)
	return id
}

// placeInstalled makes the installed version a candidate, holding the
// ranges the inventory lists (or, when it lists none, its catalog ones).
func (p *problem) placeInstalled(n *node, inst *Installed) {
	iv := &Version{Raw: inst.Raw, SemVer: inst.SemVer, unlisted: true}
	for i, c := range n.cands {
		if c.SemVer.Equal(inst.SemVer) {
			cp := *c
			iv = &cp
			n.cands = append(n.cands[:i:i], n.cands[i+1:]...)
			break
		}
	}
	if inst.HasDeps {
		iv.Deps = inst.Deps
	}
	at := len(n.cands)
	for i, c := range n.cands {
		if c.SemVer.LessThan(inst.SemVer) {
			at = i
			break
		}
	}
	n.cands = append(n.cands[:at:at], append([]*Version{iv}, n.cands[at:]...)...)
	n.installed = at
}

// restrict adds the constraints a package brings by itself: an installed
// one stays put (allowUpgrades false) or never goes down; one switched off
// by a parameter or a missing capability is skipped.
func (p *problem) restrict(id int, n *node, inst *Installed) {
	switch {
	case inst != nil && (p.req.AllowUpgrades || p.req.Upgrade == n.name):
		below := solver.None(n.size())
		for i := n.installed + 1; i < len(n.cands); i++ {
			below = below.With(i)
		}
		if !below.Empty() {
			p.restriction(p.external(constraint{kind: kindDowngrade, target: id, rng: inst.Raw}, solver.Require(id, below)))
		}
	case inst != nil:
		p.restriction(p.external(constraint{kind: kindPinned, target: id, rng: inst.Raw},
			solver.Require(id, n.real().Without(n.installed))))
	}
	if n.skip < 0 {
		return
	}
	if why := p.req.forced[n.name]; why != "" {
		p.restriction(p.external(constraint{kind: kindForced, target: id, note: why}, solver.Require(id, n.real())))
	} else if path, val := p.req.Policy.SwitchedOff(n.name); path != "" {
		note := fmt.Sprintf("parameter %s is %s", path, val)
		p.restriction(p.external(constraint{kind: kindParam, target: id, note: note}, solver.Require(id, n.real())))
	}
}

// latestNeeded is latest(D): latestVersion when it is allowed and provides
// what the package was discovered for, else the highest such version.
func (n *node) latestNeeded() int {
	if n.latest >= 0 && n.needed.Has(n.latest) {
		return n.latest
	}
	return n.needed.And(n.real()).First()
}

// restriction records a constraint a package brings by itself: the search
// under way learns it with the package, later searches from the start.
func (p *problem) restriction(in *solver.Incompat) {
	p.pending = append(p.pending, in)
	p.own = append(p.own, in)
}

// requires lists every capability some version of the package requires.
func (n *node) requires() []string {
	var out []string
	for _, c := range n.cands {
		out = append(out, c.Requires...)
	}
	return out
}

// mask returns the candidates of a package a range allows ("" is no range:
// every release, and the installed version whatever it is).
func (p *problem) mask(id int, rng string) solver.Set {
	key := maskKey{pkg: id, rng: rng}
	if m, ok := p.masks[key]; ok {
		return m
	}
	n := p.nodes[id]
	c, _ := p.req.Ranges.Parse(rng) // ranges were checked when read
	m := solver.None(n.size())
	for i, v := range n.cands {
		if Allows(c, v.SemVer, p.req.Prereleases) || (rng == "" && i == n.installed) {
			m = m.With(i)
		}
	}
	p.masks[key] = m
	return m
}

// holders adds, for every installed package that is not moving, the ranges
// it holds on its dependencies: "while X stays, D must be within R" (its
// installed version, and "skip", always are).
func (p *problem) holders() []*solver.Incompat {
	var out []*solver.Incompat
	for _, name := range sortedKeys(p.req.Installed) {
		for _, d := range p.req.heldDeps(name, p.pins[name]) {
			out = append(out, p.holder(name, d.Package, d.Version)...)
		}
	}
	return out
}

func (p *problem) holder(name, dep, rng string) []*solver.Incompat {
	x := p.node(name)
	d := p.node(dep)
	xn, dn := p.nodes[x], p.nodes[d]
	if x != d {
		p.holdersOn[d] = append(p.holdersOn[d], held{pkg: x, name: name, rng: rng})
	}
	ok := p.mask(d, rng)
	if dn.installed >= 0 {
		ok = ok.With(dn.installed)
	}
	if dn.skip >= 0 {
		ok = ok.With(dn.skip)
	}
	bad := solver.All(dn.size()).Minus(ok)
	if bad.Empty() || x == d {
		return nil
	}
	moved := solver.None(xn.size())
	if p.req.AllowUpgrades || p.req.Upgrade == name {
		moved = xn.real().Without(xn.installed)
	}
	in := p.external(constraint{kind: kindHolder, target: d, byPkg: x, by: name, rng: rng},
		solver.Forbid(x, moved), solver.Require(d, bad))
	return []*solver.Incompat{in}
}

// heldDeps returns the ranges an installed package holds: those its
// InstalledPackage lists, or, when it lists none, its catalog version's.
func (r *Request) heldDeps(name, repo string) []v1alpha1.Dependency {
	inst := r.Installed[name]
	if inst == nil {
		return nil
	}
	if inst.HasDeps {
		return inst.Deps
	}
	if v := r.installedVersion(name, repo); v != nil {
		return v.Deps
	}
	return nil
}

// needs reports whether the installed package name holds a range on dep.
func (r *Request) needs(name, dep string) bool {
	return slices.ContainsFunc(r.heldDeps(name, ""), func(d v1alpha1.Dependency) bool { return d.Package == dep })
}

// installedVersion returns the catalog's entry for the installed version of
// a package (from repo; "": the only one), or nil when the package is not
// installed or the catalog does not list that version.
func (r *Request) installedVersion(name, repo string) *Version {
	inst := r.Installed[name]
	if inst == nil {
		return nil
	}
	if pkg, _ := r.Catalog.Find(name, repo); pkg != nil {
		return pkg.Version(inst.SemVer)
	}
	return nil
}
