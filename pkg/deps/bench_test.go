package deps_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

// bigCatalog builds a catalog of n packages with v versions each
// (majors 1-3, minors and patches below them), each version depending on up
// to four packages further down the list with the ranges real catalogs use:
// carets, tildes, bounded intervals, lower bounds, and no range. Newer
// versions of a package ask for newer dependencies, so the highest versions
// do not all fit together and the search has to choose. It is the same for
// the same seed.
func bigCatalog(n, v int, seed uint64) *deps.Catalog {
	r := rand.New(rand.NewPCG(seed, 0))
	pkgs := make([]*deps.Package, n)
	for i := range pkgs {
		p := &deps.Package{Name: fmt.Sprintf("pkg-%04d", i), Repo: "catalog"}
		for j := v - 1; j >= 0; j-- {
			raw := fmt.Sprintf("%d.%d.%d", 1+j/10, (j%10)/2, j%2)
			sv, _ := deps.ParseVersion(raw)
			ver := &deps.Version{Raw: raw, SemVer: sv}
			for k := 0; k < r.IntN(5) && i+1 < n; k++ {
				d := i + 1 + r.IntN(min(40, n-i-1))
				ver.Deps = append(ver.Deps, v1alpha1.Dependency{Package: fmt.Sprintf("pkg-%04d", d), Version: someRange(r, j, v)})
			}
			p.Vers = append(p.Vers, ver)
		}
		if r.IntN(3) == 0 {
			p.Latest = p.Vers[1].Raw // latestVersion lagging behind the newest
		}
		pkgs[i] = p
	}
	return deps.NewCatalog(pkgs...)
}

// someRange returns a range that a version j (of v) would ask of a
// dependency: newer versions ask for newer majors.
func someRange(r *rand.Rand, j, v int) string {
	major := 1 + j*3/v
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("^%d.%d", major, r.IntN(3))
	case 1:
		return fmt.Sprintf("~%d.%d", major, r.IntN(5))
	case 2:
		return fmt.Sprintf(">=%d.0.0 <%d.0.0", major, major+1)
	case 3:
		return fmt.Sprintf(">=%d.1", max(1, major-1))
	case 4:
		return fmt.Sprintf("%d.x", major)
	}
	return ""
}

// bigRequest asks for roots packages of a big catalog of n packages, half
// of them within a range, on a cluster where 1.5 × roots packages are
// installed already (each holding its catalog version's ranges); upgrades
// are allowed.
func bigRequest(n, roots int) deps.Request {
	cat := bigCatalog(n, 30, 1)
	r := rand.New(rand.NewPCG(2, 0))
	req := deps.Request{Catalog: cat, Installed: map[string]*deps.Installed{},
		Options: deps.Options{Budget: deps.Budget, AllowUpgrades: true}}
	for i := 0; i < roots*3/2; i++ {
		name := fmt.Sprintf("pkg-%04d", n/2+r.IntN(n/2))
		v := cat.Offers(name)[0].Vers[10+r.IntN(20)]
		req.Installed[name] = &deps.Installed{Package: name, Raw: v.Raw, SemVer: v.SemVer}
	}
	for i := 0; i < roots; i++ {
		name := fmt.Sprintf("pkg-%04d", r.IntN(n))
		rng := ""
		if i%2 == 0 && req.Installed[name] == nil && !slices.ContainsFunc(req.Roots, func(o deps.Root) bool { return o.Package == name }) {
			rng = someRange(r, r.IntN(30), 30)
		}
		req.Roots = append(req.Roots, deps.Root{Package: name, Range: rng, By: "PackageInstall/" + name})
	}
	return req
}

// BenchmarkResolve is the benchmark: 2,000 packages × 30 versions,
// 200 roots.
func BenchmarkResolve(b *testing.B) {
	req := bigRequest(2000, 200)
	b.ReportAllocs()
	var plan *deps.Plan
	for b.Loop() {
		plan = deps.Resolve(req)
	}
	if plan.Failed() {
		b.Fatalf("no plan: %v", plan.Results[0])
	}
	b.ReportMetric(float64(len(plan.Steps)), "packages")
	b.ReportMetric(float64(plan.Search.Steps), "search-steps")
	b.ReportMetric(float64(plan.Search.Conflicts), "conflicts")
}

// TestBigCatalogResolves checks, on a quarter of the benchmark's catalog,
// that the plan keeps every constraint: each chosen version inside every
// range of the chosen versions that depend on it (but for what the
// inventory already had).
func TestBigCatalogResolves(t *testing.T) {
	t.Parallel()
	req := bigRequest(500, 50)
	plan := deps.Resolve(req)
	if plan.Failed() {
		t.Fatalf("no plan: %v", plan.Results[0])
	}
	chosen := map[string]*deps.Version{}
	kept := map[string]bool{}
	for _, s := range plan.Steps {
		kept[s.Package] = s.Action == "keep"
		for _, v := range req.Catalog.Offers(s.Package)[0].Vers {
			if v.Raw == s.Version {
				chosen[s.Package] = v
			}
		}
	}
	ranges := deps.NewRanges()
	for name, v := range chosen {
		for _, d := range v.Deps {
			c, _ := ranges.Parse(d.Version)
			if kept[name] && kept[d.Package] {
				continue // the inventory as it was: taken as it is
			}
			if dv := chosen[d.Package]; dv == nil || !deps.Allows(c, dv.SemVer, false) {
				t.Errorf("%s %s needs %s %q, the plan has %v", name, v.Raw, d.Package, d.Version, dv)
			}
		}
	}
	if len(chosen) != len(plan.Steps) || len(plan.Steps) < 50 {
		t.Errorf("%d steps, %d of them chosen versions", len(plan.Steps), len(chosen))
	}
}

// pigeonCatalog is the pigeonhole problem as packages: n+1 pigeons that
// each need one of n holes for themselves (pigeon p at version h needs
// hole h at exactly version p). No plan exists, and any resolution-based
// search (PubGrub's included) needs exponential time to prove it.
func pigeonCatalog(n int) (*deps.Catalog, []deps.Root) {
	var pkgs []*deps.Package
	var roots []deps.Root
	for p := 0; p <= n; p++ {
		pkg := &deps.Package{Name: fmt.Sprintf("pigeon-%02d", p), Repo: "catalog"}
		for h := n - 1; h >= 0; h-- {
			raw := fmt.Sprintf("%d.0.0", h+1)
			sv, _ := deps.ParseVersion(raw)
			pkg.Vers = append(pkg.Vers, &deps.Version{Raw: raw, SemVer: sv,
				Deps: []v1alpha1.Dependency{{Package: fmt.Sprintf("hole-%02d", h), Version: fmt.Sprintf("=%d.0.0", p+1)}}})
		}
		pkgs = append(pkgs, pkg)
		roots = append(roots, deps.Root{Package: pkg.Name, By: "PackageInstall/" + pkg.Name})
	}
	for h := 0; h < n; h++ {
		pkg := &deps.Package{Name: fmt.Sprintf("hole-%02d", h), Repo: "catalog"}
		for p := n; p >= 0; p-- {
			raw := fmt.Sprintf("%d.0.0", p+1)
			sv, _ := deps.ParseVersion(raw)
			pkg.Vers = append(pkg.Vers, &deps.Version{Raw: raw, SemVer: sv})
		}
		pkgs = append(pkgs, pkg)
	}
	return deps.NewCatalog(pkgs...), roots
}

// BenchmarkResolveWorstCase forces the search to backtrack until the step
// budget runs out, and checks it ends with an explanation.
func BenchmarkResolveWorstCase(b *testing.B) {
	cat, roots := pigeonCatalog(12)
	req := deps.Request{Catalog: cat, Roots: roots, Options: deps.Options{Budget: deps.Budget}}
	b.ReportAllocs()
	var plan *deps.Plan
	for b.Loop() {
		plan = deps.Resolve(req)
	}
	if !plan.Failed() || !strings.Contains(plan.Results[0].Message, "gave up after") {
		b.Fatalf("want the budget to run out, got %v", plan.Results)
	}
}

func TestWorstCaseEndsWithinBudget(t *testing.T) {
	t.Parallel()
	cat, roots := pigeonCatalog(12)
	plan := deps.Resolve(deps.Request{Catalog: cat, Roots: roots, Options: deps.Options{Budget: 20_000}})
	if !plan.Failed() {
		t.Fatal("the pigeonhole problem has no plan")
	}
	msg := plan.Results[0].Message
	if !strings.HasPrefix(msg, "gave up after 20") || !strings.Contains(msg, "the last conflict it learned: ") || !strings.Contains(msg, "pigeon-") || !strings.HasSuffix(msg, "cannot all hold") {
		t.Errorf("message %q does not explain the budget", msg)
	}
}

func TestSmallPigeonholeIsProved(t *testing.T) {
	t.Parallel()
	cat, roots := pigeonCatalog(3)
	plan := deps.Resolve(deps.Request{Catalog: cat, Roots: roots})
	if !plan.Failed() || strings.Contains(plan.Results[0].Message, "gave up") {
		t.Fatalf("want a proof, got %v", plan.Results)
	}
	// The proof: each of the three holes is wanted by all four pigeons.
	want := []string{"error: no version of hole-00 satisfies pigeon-00 1.0.0 (=1.0.0), pigeon-03 1.0.0 (=4.0.0), pigeon-02 1.0.0 (=3.0.0), pigeon-01 1.0.0 (=2.0.0); " +
		"no version of hole-01 satisfies pigeon-02 2.0.0 (=3.0.0), pigeon-03 2.0.0 (=4.0.0), pigeon-01 2.0.0 (=2.0.0), pigeon-00 2.0.0 (=1.0.0); " +
		"no version of hole-02 satisfies pigeon-03 3.0.0 (=4.0.0), pigeon-02 3.0.0 (=3.0.0), pigeon-01 3.0.0 (=2.0.0), pigeon-00 3.0.0 (=1.0.0)"}
	if diff := cmp.Diff(want, render(plan)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// BenchmarkFunction runs the whole function over a golden case; the
// baseline is an identity pass over the same ResourceList.
func BenchmarkFunction(b *testing.B) {
	for _, tc := range []struct {
		name string
		fn   krmfn.Function
	}{{"identity", krmfn.Identity}, {"resolve-deps", deps.Function}} {
		in := readCase(b, "testdata/nephio-controllers-rbac")
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			defer krmtest.CPU(b)()
			for b.Loop() {
				krmfn.Process(tc.fn, in, krmtest.Env(krmtest.Clock, nil))
			}
		})
	}
}
