package deps_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/deps/lifecycle"
)

type resolveCase struct {
	name      string
	catalog   string
	installed string
	roots     string
	opts      deps.Options
	want      []string
}

func runCases(t *testing.T, cases []resolveCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := deps.Request{Catalog: catalogOf(t, tt.catalog), Installed: inventoryOf(t, tt.installed), Roots: rootsOf(tt.roots), Options: tt.opts}
			got := render(deps.Resolve(req))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// The branches of Glasskube's decision tree, P -> D.
func TestResolveGlasskube(t *testing.T) {
	t.Parallel()
	runCases(t, []resolveCase{{
		name:    "no range, D missing: install D at latest(D)",
		catalog: "p@1.0.0 | deps: d\nd@1.5.0\nd@1.4.0 | latest\nd@1.3.0",
		roots:   "p",
		want: []string{
			"install d 1.4.0 [p]: latest version, needed by p",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:      "no range, D exists: fulfilled",
		catalog:   "p@1.0.0 | deps: d\nd@2.0.0\nd@1.0.0",
		installed: "d@1.0.0",
		roots:     "p",
		want: []string{
			"keep d 1.0.0 [p]: fulfilled: 1.0.0 is installed",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:    "range PDV, D missing: install D at max_available(PDV)",
		catalog: "p@1.0.0 | deps: d ^1.2\nd@2.0.0 | latest\nd@1.9.1\nd@1.2.0\nd@1.1.0",
		roots:   "p",
		want: []string{
			"install d 1.9.1 [p]: highest version that satisfies p (^1.2)",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:    "a range, even one that holds every version, picks max_available(PDV) over latestVersion",
		catalog: "p@1.0.0 | deps: d >=1.0\nd@2.0.0\nd@1.5.0 | latest",
		roots:   "p",
		want: []string{
			"install d 2.0.0 [p]: highest version that satisfies p (>=1.0)",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:      "DV inside PDV: fulfilled",
		catalog:   "p@1.0.0 | deps: d ^1.2\nd@1.9.0\nd@1.3.0",
		installed: "d@1.3.0",
		roots:     "p",
		want: []string{
			"keep d 1.3.0 [p]: fulfilled: 1.3.0 is installed and satisfies p (^1.2)",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:      "DV below PDV: conflict resolvable by updating D",
		catalog:   "p@1.0.0 | deps: d ^1.4\nd@1.6.0\nd@1.4.0\nd@1.0.0",
		installed: "d@1.0.0",
		roots:     "p",
		want: []string{
			"error: d: conflict resolvable by updating d to 1.6.0 (set allowUpgrades: true): no version of d satisfies p (^1.4), installed 1.0.0 (allowUpgrades is false)",
		},
	}, {
		name:      "DV below PDV, upgrades allowed: D is updated",
		catalog:   "p@1.0.0 | deps: d ^1.4\nd@1.6.0\nd@1.4.0\nd@1.0.0",
		installed: "d@1.0.0",
		roots:     "p",
		opts:      deps.Options{AllowUpgrades: true},
		want: []string{
			"upgrade d 1.6.0 [p]: conflict resolvable by updating d from 1.0.0 to 1.6.0: highest version that satisfies p (^1.4)",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:      "DV above PDV: not resolvable, P does not support DV yet",
		catalog:   "p@1.0.0 | deps: d ^1.0\nd@2.1.0\nd@1.9.0",
		installed: "d@2.1.0",
		roots:     "p",
		opts:      deps.Options{AllowUpgrades: true},
		want: []string{
			"error: d: conflict not resolvable because p does not support d 2.1.0 yet: no version of d satisfies p (^1.0), installed 2.1.0 (never downgraded)",
		},
	}, {
		name:      "other dependants X and Y: the version that satisfies them all",
		catalog:   "p@1.0.0 | deps: d >=1.5\nx@1.0.0 | deps: d <1.8\ny@1.0.0 | deps: d <1.6\nd@1.9.0\nd@1.7.0\nd@1.5.3\nd@1.5.1\nd@1.2.0",
		installed: "x@1.0.0\ny@1.0.0\nd@1.2.0",
		roots:     "p",
		opts:      deps.Options{AllowUpgrades: true},
		want: []string{
			"upgrade d 1.5.3 [p]: conflict resolvable by updating d from 1.2.0 to 1.5.3: highest version that satisfies p (>=1.5), x (<1.8), y (<1.6)",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:      "other dependants X and Y: the proof that no version satisfies them all",
		catalog:   "p@1.0.0 | deps: d ^2\nx@1.0.0 | deps: d <2.0\ny@1.0.0 | deps: d >=1.0\nd@2.0.0\nd@1.0.0",
		installed: "x@1.0.0\ny@1.0.0",
		roots:     "p",
		want: []string{
			"error: no version of d satisfies p (^2), x (<2.0)",
		},
	}})
}

func TestResolveSearch(t *testing.T) {
	t.Parallel()
	runCases(t, []resolveCase{{
		name: "backtracks to a lower version of the dependant",
		catalog: `
app@2.0.0 | deps: lib ^2
app@1.0.0 | deps: lib ^1
lib@2.0.0 | deps: ghost
lib@1.1.0`,
		roots: "app",
		want: []string{
			"install lib 1.1.0 [app]: highest version that satisfies app (^1)",
			"install app 1.0.0: highest version that fits the rest of the plan (2.0.0 does not), needed by PackageInstall/app",
			"uninstall: app,lib",
		},
	}, {
		name: "passes over a version inside the ranges that does not fit",
		catalog: `
app@1.0.0 | deps: lib ^1; util ^1
lib@1.2.0 | deps: util ^2
lib@1.1.0 | deps: util ^1
util@2.0.0
util@1.0.0`,
		roots: "app",
		want: []string{
			"install util 1.0.0 [app,lib]: highest version that satisfies app (^1), lib (^1)",
			"install lib 1.1.0 [app]: highest version that satisfies app (^1) and fits the rest of the plan (1.2.0 does not)",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,lib,util",
		},
	}, {
		name: "the explanation leaves out constraints that do not clash",
		catalog: `
p@1.0.0 | deps: d ^1.2; e ^1
q@1.0.0 | deps: e >=1.0
x@1.0.0 | deps: d <1.0
d@1.3.0
d@0.9.0
e@1.0.0`,
		roots: "p\nq\nx",
		want:  []string{"error: no version of d satisfies p (^1.2), x (<1.0)"},
	}, {
		name: "every version of the dependant clashes",
		catalog: `
p@2.0.0 | deps: d ^2
p@1.0.0 | deps: d ^1
d@3.0.0
d@0.5.0`,
		roots: "p",
		want:  []string{"error: no version of d satisfies p 2.0.0 (^2), p 1.0.0 (^1)"},
	}, {
		name:    "a root's range is intersected with the dependencies'",
		catalog: "p@1.0.0 | deps: d ^1\nd@1.9.0\nd@1.5.0\nd@1.0.0",
		roots:   "p\nd <1.6",
		want: []string{
			"install d 1.5.0 [p]: highest version that satisfies PackageInstall/d (<1.6), p (^1)",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:    "a dependency on a package no catalog offers",
		catalog: "app@1.0.0 | deps: ghost ^1",
		roots:   "app",
		want:    []string{"error: ghost is needed by app (^1), but no catalog offers it"},
	}, {
		name:    "a package offered by two repositories needs a choice",
		catalog: "a/d@1.0.0\nb/d@2.0.0\np@1.0.0 | deps: d",
		roots:   "p",
		want:    []string{`error: d is needed by p (any version), but it is offered by several repositories ("a", "b"): choose one with spec.repo in a PackageInstall`},
	}, {
		name:    "a PackageInstall chooses the repository",
		catalog: "a/d@1.0.0\nb/d@2.0.0\np@1.0.0 | deps: d",
		roots:   "p\nb/d",
		want: []string{
			"install d 2.0.0 [p]: latest version, needed by PackageInstall/d, p",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"uninstall: p,d",
		},
	}, {
		name:    "a cycle is refused, naming the whole cycle",
		catalog: "a@1.0.0 | deps: b\nb@1.0.0 | deps: c\nc@1.0.0 | deps: a\nd@1.0.0 | deps: a",
		roots:   "d",
		want:    []string{"error: dependency cycle: a -> b -> c -> a"},
	}, {
		name:    "a package that depends on itself is a cycle",
		catalog: "a@1.0.0 | deps: a",
		roots:   "a",
		want:    []string{"error: dependency cycle: a -> a"},
	}, {
		name:    "ties in the install order go by name",
		catalog: "app@1.0.0 | deps: zeta; alpha; mid\nzeta@1.0.0\nalpha@1.0.0\nmid@1.0.0 | deps: alpha",
		roots:   "app",
		want: []string{
			"install alpha 1.0.0 [app,mid]: latest version, needed by app, mid",
			"install mid 1.0.0 [app]: latest version, needed by app",
			"install zeta 1.0.0 [app]: latest version, needed by app",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,zeta,mid,alpha",
		},
	}, {
		name:      "an installed dependant moves when upgrades are allowed and its range is in the way",
		catalog:   "p@1.0.0 | deps: d ^2\nx@2.0.0 | deps: d ^2\nx@1.0.0 | deps: d ^1\nd@2.0.0\nd@1.0.0",
		installed: "x@1.0.0\nd@1.0.0",
		roots:     "p",
		opts:      deps.Options{AllowUpgrades: true},
		want: []string{
			"upgrade d 2.0.0 [p,x]: conflict resolvable by updating d from 1.0.0 to 2.0.0: highest version that satisfies p (^2), x (^2)",
			"install p 1.0.0: latest version, needed by PackageInstall/p",
			"upgrade x 2.0.0: updated from 1.0.0 to 2.0.0: x 1.0.0 holds d (^1), which excludes d 2.0.0",
			"uninstall: x,p,d",
		},
	}})
}

func TestResolvePrereleases(t *testing.T) {
	t.Parallel()
	cat := "d@1.5.0-rc.1\nd@1.4.0\nd@1.3.0"
	lagging := "d@1.5.0-rc.1\nd@1.4.0 | latest\nd@1.3.0"
	runCases(t, []resolveCase{{
		name: "no range: no prerelease", catalog: cat, roots: "d",
		want: []string{"install d 1.4.0: latest version, needed by PackageInstall/d", "uninstall: d"},
	}, {
		name: "no range, prereleases allowed: the highest", catalog: cat, roots: "d", opts: deps.Options{Prereleases: true},
		want: []string{"install d 1.5.0-rc.1: latest version, needed by PackageInstall/d", "uninstall: d"},
	}, {
		name: "latestVersion lags behind a prerelease: it wins", catalog: lagging, roots: "d", opts: deps.Options{Prereleases: true},
		want: []string{"install d 1.4.0: latest version, needed by PackageInstall/d", "uninstall: d"},
	}, {
		name: "a range that names a prerelease admits it", catalog: cat, roots: "d >=1.5.0-0",
		want: []string{"install d 1.5.0-rc.1: highest version that satisfies PackageInstall/d (>=1.5.0-0)", "uninstall: d"},
	}, {
		name: "a range without a prerelease does not", catalog: cat, roots: "d >=1.5.0",
		want: []string{"error: no version of d satisfies PackageInstall/d (>=1.5.0)"},
	}})
}

func TestResolveDiscovered(t *testing.T) {
	t.Parallel()
	cat := `
cert-manager@1.14.4 | apis: cert-manager.io/v1 Certificate
cert-manager@1.13.0 | apis: cert-manager.io/v1 Certificate | latest
cert-manager@0.9.0 | apis: certmanager.k8s.io/v1alpha1 Certificate`
	runCases(t, []resolveCase{{
		name: "a discovered package at latest(D), which provides the API", catalog: cat,
		roots: "api: cert-manager cert-manager.io/v1 Certificate",
		want: []string{
			"install cert-manager 1.13.0: latest version, needed by Certificate/x (provides cert-manager.io/v1 Certificate)",
			"uninstall: cert-manager",
		},
	}, {
		name: "the chosen version must provide the API", catalog: cat,
		roots: "api: cert-manager cert-manager.io/v1 Certificate\ncert-manager <1.0",
		want:  []string{"error: no version of cert-manager satisfies PackageInstall/cert-manager (<1.0), Certificate/x (provides cert-manager.io/v1 Certificate)"},
	}, {
		name: "an installed version the catalog does not list is taken to provide the API", catalog: cat, installed: "cert-manager@1.12.0",
		roots: "api: cert-manager cert-manager.io/v1 Certificate",
		want: []string{
			"keep cert-manager 1.12.0: fulfilled: 1.12.0 is installed; needed by Certificate/x (provides cert-manager.io/v1 Certificate)",
			"uninstall: cert-manager",
		},
	}, {
		name: "an installed version that lacks the API", catalog: cat, installed: "cert-manager@0.9.0",
		roots: "api: cert-manager cert-manager.io/v1 Certificate",
		want:  []string{"error: cert-manager: conflict resolvable by updating cert-manager to 1.13.0 (set allowUpgrades: true): no version of cert-manager satisfies Certificate/x (provides cert-manager.io/v1 Certificate), installed 0.9.0 (allowUpgrades is false)"},
	}})
}

func policy(t *testing.T, params map[string]any, layers ...v1alpha1.Lifecycle) *lifecycle.Policy {
	t.Helper()
	p, errs := lifecycle.New(layers, params, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return p
}

func TestResolveHubLifecycle(t *testing.T) {
	t.Parallel()
	stack := `
cluster@1.0.0 | provides: kubernetes
ingress@1.0.0 | requires: kubernetes | provides: ingress
dns@1.0.0 | requires: kubernetes, cloud-dns | provides: dns
app@1.0.0 | requires: kubernetes, ingress, dns`
	roots := "app\ncluster\ningress\ndns"
	tune := func(entries ...string) v1alpha1.Lifecycle {
		return v1alpha1.Lifecycle{Requires: v1alpha1.RequiresTuning{Optional: entries}}
	}
	runCases(t, []resolveCase{{
		name: "providers come before the packages that require them", catalog: stack, roots: roots,
		opts: deps.Options{Environment: []string{"cloud-dns"}},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			"install dns 1.0.0: latest version, needed by PackageInstall/dns",
			"install ingress 1.0.0: latest version, needed by PackageInstall/ingress",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,ingress,dns,cluster",
		},
	}, {
		name: "a capability nobody provides is an error", catalog: stack, roots: roots,
		want: []string{`error: dns 1.0.0 requires capability "cloud-dns", which no package before it provides and the environment does not: add a package that provides it, list it in environment, or make it optional with lifecycle.requires.optional "cloud-dns:dns"`},
	}, {
		name: "an optional requirement skips the package, and those that require what it provides", catalog: stack, roots: roots,
		opts: deps.Options{Policy: policy(t, nil, tune("cloud-dns:dns", "dns:app"))},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			"install ingress 1.0.0: latest version, needed by PackageInstall/ingress",
			`skip app: requires capability "dns", which no package before it provides and the environment does not (optional: "dns:app")`,
			`skip dns: requires capability "cloud-dns", which no package before it provides and the environment does not (optional: "cloud-dns:dns")`,
			"uninstall: ingress,cluster",
			`warning: app: skip: requires capability "dns", which no package before it provides and the environment does not (optional: "dns:app")`,
			`warning: dns: skip: requires capability "cloud-dns", which no package before it provides and the environment does not (optional: "cloud-dns:dns")`,
		},
	}, {
		name: "a derived stack's ':dns' erases the base's optional entries for dns", catalog: stack, roots: roots,
		opts: deps.Options{Policy: policy(t, nil, tune("cloud-dns:dns"), tune(":dns"))},
		want: []string{`error: dns 1.0.0 requires capability "cloud-dns", which no package before it provides and the environment does not: add a package that provides it, list it in environment, or make it optional with lifecycle.requires.optional "cloud-dns:dns"`},
	}, {
		name: "a parameter switches a package off", catalog: stack, roots: "cluster\ningress",
		opts: deps.Options{Policy: policy(t, map[string]any{"ingress": map[string]any{"enabled": "false"}}, tune("ingress.enabled:ingress"))},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			`skip ingress: parameter ingress.enabled is false`,
			"uninstall: cluster",
			`warning: ingress: skip: parameter ingress.enabled is false`,
		},
	}, {
		name: "a truthy parameter deploys it", catalog: stack, roots: "cluster\ningress",
		opts: deps.Options{Policy: policy(t, map[string]any{"ingress.enabled": "yes"}, tune("ingress.enabled:ingress"))},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			"install ingress 1.0.0: latest version, needed by PackageInstall/ingress",
			"uninstall: ingress,cluster",
		},
	}, {
		name: "an optional package fails softly", catalog: stack + "\nextra@1.0.0 | deps: ghost", roots: "cluster\nextra",
		opts: deps.Options{Policy: policy(t, nil, v1alpha1.Lifecycle{Optional: []string{"extra"}})},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			"skip extra: optional package that cannot be installed: ghost is needed by extra (any version), but no catalog offers it",
			"uninstall: cluster",
			"warning: extra: skip: optional package that cannot be installed: ghost is needed by extra (any version), but no catalog offers it",
		},
	}, {
		name: "an optional package explains the clash that made it skip", catalog: stack + "\nextra@1.0.0 | deps: db ^2\ndb@2.0.0\ndb@1.0.0",
		installed: "db@1.0.0", roots: "cluster\nextra",
		opts: deps.Options{Policy: policy(t, nil, v1alpha1.Lifecycle{Optional: []string{"extra"}})},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			"skip extra: optional package that cannot be installed: no version of db satisfies extra (^2), installed 1.0.0 (allowUpgrades is false)",
			"uninstall: cluster",
			"warning: extra: skip: optional package that cannot be installed: no version of db satisfies extra (^2), installed 1.0.0 (allowUpgrades is false)",
		},
	}, {
		name: "with mandatory packages, every other one is optional", catalog: stack, roots: roots,
		opts: deps.Options{Policy: policy(t, nil, v1alpha1.Lifecycle{Mandatory: []string{"cluster", "ingress"}})},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			"install ingress 1.0.0: latest version, needed by PackageInstall/ingress",
			`skip app: requires capability "dns", which no package before it provides and the environment does not (optional: not in lifecycle.mandatory)`,
			`skip dns: requires capability "cloud-dns", which no package before it provides and the environment does not (optional: not in lifecycle.mandatory)`,
			"uninstall: ingress,cluster",
			`warning: app: skip: requires capability "dns", which no package before it provides and the environment does not (optional: not in lifecycle.mandatory)`,
			`warning: dns: skip: requires capability "cloud-dns", which no package before it provides and the environment does not (optional: not in lifecycle.mandatory)`,
		},
	}, {
		name: "an installed package missing an optional capability stays", catalog: stack, roots: "cluster\ndns", installed: "dns@1.0.0",
		opts: deps.Options{Policy: policy(t, nil, tune("cloud-dns:dns"))},
		want: []string{
			"install cluster 1.0.0: latest version, needed by PackageInstall/cluster",
			"keep dns 1.0.0: fulfilled: 1.0.0 is installed",
			"uninstall: dns,cluster",
			`warning: dns 1.0.0 requires capability "cloud-dns", which no package before it provides and the environment does not (optional: "cloud-dns:dns"); it is installed, so it stays`,
		},
	}, {
		name: "a package that needs a skipped one cannot be installed", catalog: stack + "\nweb@1.0.0 | deps: dns", roots: "cluster\nweb",
		opts: deps.Options{Policy: policy(t, nil, tune("cloud-dns:dns"))},
		want: []string{`error: no version of dns satisfies web (any version), requires capability "cloud-dns", which no package before it provides and the environment does not (optional: "cloud-dns:dns")`},
	}})
}

// Catalog versions that use APIs (requires.apis, as catalog index writes
// them): the provider is chosen when resolving.
func TestResolveRequiredAPIs(t *testing.T) {
	t.Parallel()
	cat := `
app@1.0.0 | uses: infra.nephio.org WorkloadCluster
nephio-operator@1.0.0 | apis: infra.nephio.org/v1alpha1 WorkloadCluster
spiffe-operator@1.0.0 | apis: infra.nephio.org/v1alpha1 WorkloadCluster`
	runCases(t, []resolveCase{{
		name:    "the only provider is a dependency, with the reason",
		catalog: "app@1.0.0 | uses: infra.nephio.org WorkloadCluster\nnephio-operator@1.0.0 | apis: infra.nephio.org/v1alpha1 WorkloadCluster",
		roots:   "app",
		want: []string{
			"install nephio-operator 1.0.0 [app]: latest version, needed by app (uses infra.nephio.org WorkloadCluster: x.yaml)",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,nephio-operator",
		},
	}, {
		name: "several providers, none installed or named: an error naming them", catalog: cat, roots: "app",
		want: []string{"error: app 1.0.0 uses infra.nephio.org WorkloadCluster (x.yaml), which several catalog packages provide (nephio-operator, spiffe-operator) and none is installed: choose one with providers: {infra.nephio.org: <package>} in the ResolveDeps, or a PackageInstall"},
	}, {
		name: "the installed provider first", catalog: cat, roots: "app", installed: "spiffe-operator@1.0.0",
		opts: deps.Options{Providers: map[string]string{"infra.nephio.org": "nephio-operator"}},
		want: []string{
			"keep spiffe-operator 1.0.0 [app]: fulfilled: 1.0.0 is installed",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,spiffe-operator",
		},
	}, {
		name: "else the one providers names", catalog: cat, roots: "app",
		opts: deps.Options{Providers: map[string]string{"infra.nephio.org": "nephio-operator"}},
		want: []string{
			"install nephio-operator 1.0.0 [app]: latest version, needed by app (uses infra.nephio.org WorkloadCluster: x.yaml)",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,nephio-operator",
		},
	}, {
		name: "else the one a PackageInstall asks for", catalog: cat, roots: "app\nspiffe-operator",
		want: []string{
			"install spiffe-operator 1.0.0 [app]: latest version, needed by PackageInstall/spiffe-operator, app (uses infra.nephio.org WorkloadCluster: x.yaml)",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,spiffe-operator",
		},
	}, {
		name: "providers naming a package that does not provide the API", catalog: cat + "\nweb@1.0.0", roots: "app",
		opts: deps.Options{Providers: map[string]string{"infra.nephio.org": "web"}},
		want: []string{"error: app 1.0.0 uses infra.nephio.org WorkloadCluster (x.yaml), which providers names web for group infra.nephio.org, but it does not provide this API; the packages that do: nephio-operator, spiffe-operator"},
	}, {
		name: "an API no catalog package provides is a warning", catalog: "app@1.0.0 | uses: example.com Widget; example.com res:gadgets", roots: "app",
		want: []string{
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app",
			"warning: app 1.0.0 uses example.com Widget, resource \"gadgets\" of group example.com, which no catalog package provides",
		},
	}, {
		name:    "an APIService provides every resource of its group version",
		catalog: "app@1.0.0 | uses: porch.kpt.dev res:packagerevisions\nporch@1.0.0 | apis: porch.kpt.dev/v1alpha1",
		roots:   "app",
		want: []string{
			"install porch 1.0.0 [app]: latest version, needed by app (uses resource \"packagerevisions\" of group porch.kpt.dev: x.yaml)",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,porch",
		},
	}, {
		name:    "the provider's version must provide the API",
		catalog: "app@1.0.0 | uses: infra.nephio.org WorkloadCluster\ncrds@2.0.0\ncrds@1.0.0 | apis: infra.nephio.org/v1alpha1 WorkloadCluster",
		roots:   "app",
		want: []string{
			"install crds 1.0.0 [app]: highest version that fits the rest of the plan (2.0.0 does not), needed by app (uses infra.nephio.org WorkloadCluster: x.yaml)",
			"install app 1.0.0: latest version, needed by PackageInstall/app",
			"uninstall: app,crds",
		},
	}, {
		name:    "packages that use each other's APIs are a cycle",
		catalog: "a@1.0.0 | uses: b.example.com B | apis: a.example.com/v1 A\nb@1.0.0 | uses: a.example.com A | apis: b.example.com/v1 B",
		roots:   "a",
		want:    []string{"error: dependency cycle: a -> b -> a"},
	}})
}

// Every problem at once: a clash does not hide the next one, nor the
// warnings and skips of the packages that resolve.
func TestResolveEveryProblem(t *testing.T) {
	t.Parallel()
	cat := `
a@1.0.0 | deps: ghost
b@1.0.0 | deps: db ^2
db@1.0.0
c@1.0.0 | requires: cloud-dns
ok@1.0.0`
	runCases(t, []resolveCase{{
		name: "two clashes and a skip", catalog: cat, roots: "a\nb\nc\nok",
		opts: deps.Options{Policy: policy(t, nil, v1alpha1.Lifecycle{Requires: v1alpha1.RequiresTuning{Optional: []string{"cloud-dns:c"}}})},
		want: []string{
			"error: ghost is needed by a (any version), but no catalog offers it",
			"error: no version of db satisfies b (^2)",
			`warning: c: skip: requires capability "cloud-dns", which no package before it provides and the environment does not (optional: "cloud-dns:c")`,
		},
	}, {
		name: "a clash and a missing capability", catalog: cat, roots: "a\nc\nok",
		want: []string{
			"error: ghost is needed by a (any version), but no catalog offers it",
			`error: c 1.0.0 requires capability "cloud-dns", which no package before it provides and the environment does not: add a package that provides it, list it in environment, or make it optional with lifecycle.requires.optional "cloud-dns:c"`,
		},
	}})
}
