package deps_test

import (
	"strings"
	"testing"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/krmtest"
)

func FuzzFunction(f *testing.F) {
	krmtest.Seed(f, "testdata")
	f.Fuzz(func(t *testing.T, in []byte) {
		krmtest.Fuzz(t, deps.Function, in)
	})
}

// FuzzRange feeds ranges and versions as users write them to the parsers
// and to a resolution: no panic, and an invalid range is an error that
// names it.
func FuzzRange(f *testing.F) {
	for _, s := range []string{"^1.2", "~1.2.3", ">=1.0 <2.0", "1.2 - 1.4", "1.x", "1.0.0 || ^2", "=v1.2.3", ">=1.5.0-0", "^^1", "", "*", "<0.0.0-0", ">=1.0.0, <2"} {
		f.Add(s, "1.2.3")
		f.Add(s, "v2.0.0-rc.1+build.5")
	}
	f.Fuzz(func(t *testing.T, rng, version string) {
		r := deps.NewRanges()
		c, err := r.Parse(rng)
		if err != nil && !strings.Contains(err.Error(), "invalid range") {
			t.Fatalf("Parse(%q) error %q does not say the range is invalid", rng, err)
		}
		v, verr := deps.ParseVersion(version)
		if verr == nil && err == nil {
			_ = deps.Allows(c, v, false)
			_ = deps.Allows(c, v, true)
		}
		if verr != nil || err != nil {
			return
		}
		cat := deps.NewCatalog(&deps.Package{Name: "d", Repo: "r", Vers: []*deps.Version{{Raw: version, SemVer: v}}})
		plan := deps.Resolve(deps.Request{Catalog: cat, Ranges: r, Roots: []deps.Root{{Package: "d", Range: rng, By: "PackageInstall/d"}}})
		if !plan.Failed() && (len(plan.Steps) != 1 || plan.Steps[0].Version != version) {
			t.Fatalf("range %q, version %q: plan %+v", rng, version, plan.Steps)
		}
		if plan.Failed() && deps.Allows(c, v, false) {
			t.Fatalf("range %q allows %q but no plan: %v", rng, version, plan.Results)
		}
	})
}

// FuzzOperation feeds operations to their parser: no panic; a parsed one
// has what its verb needs.
func FuzzOperation(f *testing.F) {
	for _, s := range []string{"install", "upgrade db 2.0.0", "delete db", "", "  upgrade  db ", "reinstall x", "delete a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		op, err := v1alpha1.ParseOperation(s)
		if err != nil {
			return
		}
		switch op.Verb {
		case v1alpha1.OperationInstall:
		case v1alpha1.OperationUpgrade:
			if op.Package == "" {
				t.Fatalf("%q: upgrade without a package: %+v", s, op)
			}
		case v1alpha1.OperationDelete:
			if op.Package == "" {
				t.Fatalf("%q: delete without package: %+v", s, op)
			}
		default:
			t.Fatalf("%q: unknown verb accepted: %+v", s, op)
		}
	})
}
