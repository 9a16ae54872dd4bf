package deps_test

import (
	"fmt"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps"
)

func version(raw string, ds ...v1alpha1.Dependency) *deps.Version {
	v, _ := deps.ParseVersion(raw)
	return &deps.Version{Raw: raw, SemVer: v, Deps: ds}
}

// Resolve picks the highest version inside every range, backtracking over
// the dependant's versions when its newest one cannot be met.
func ExampleResolve() {
	cat := deps.NewCatalog(
		&deps.Package{Name: "web", Repo: "blueprints", Vers: []*deps.Version{
			version("2.0.0", v1alpha1.Dependency{Package: "db", Version: "^3"}),
			version("1.4.0", v1alpha1.Dependency{Package: "db", Version: "^2.1"}),
		}},
		&deps.Package{Name: "db", Repo: "blueprints", Vers: []*deps.Version{
			version("2.3.0"), version("2.1.0"), version("1.0.0"),
		}},
	)
	plan := deps.Resolve(deps.Request{Catalog: cat, Roots: []deps.Root{{Package: "web", By: "PackageInstall/web"}}})
	for _, s := range plan.Steps {
		fmt.Printf("%s %s %s: %s\n", s.Action, s.Package, s.Version, s.Reason)
	}
	// Output:
	// install db 2.3.0: highest version that satisfies web (^2.1)
	// install web 1.4.0: highest version that fits the rest of the plan (2.0.0 does not), needed by PackageInstall/web
}

// A clash is explained by the smallest set of constraints that cannot all
// hold, and who put each.
func ExampleResolve_conflict() {
	cat := deps.NewCatalog(
		&deps.Package{Name: "p", Repo: "r", Vers: []*deps.Version{version("1.0.0", v1alpha1.Dependency{Package: "d", Version: "^1.2"})}},
		&deps.Package{Name: "x", Repo: "r", Vers: []*deps.Version{version("1.0.0", v1alpha1.Dependency{Package: "d", Version: "<1.0"})}},
		&deps.Package{Name: "d", Repo: "r", Vers: []*deps.Version{version("1.3.0"), version("0.9.0")}},
	)
	v, _ := deps.ParseVersion("1.0.0")
	plan := deps.Resolve(deps.Request{
		Catalog:   cat,
		Installed: map[string]*deps.Installed{"x": {Package: "x", Raw: "1.0.0", SemVer: v}},
		Roots:     []deps.Root{{Package: "p", By: "PackageInstall/p"}},
	})
	fmt.Println(plan.Results[0].Message)
	// Output:
	// no version of d satisfies p (^1.2), x (<1.0)
}
