package fleet

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// TestRecords reads what a run in git recorded in its status: each
// PackageVariant's first downstreamTarget and kptkit.dev/commit; objects
// that say nothing of it are left out.
func TestRecords(t *testing.T) {
	status := `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: web, annotations: {kptkit.dev/commit: abc}}
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: edge01-app
  annotations: {kptkit.dev/commit: 1111111111111111111111111111111111111111}
status:
  downstreamTargets:
  - name: edge01.app.packagevariant-1
  - name: edge01.app.packagevariant-2
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata: {name: edge02-app, namespace: prod, annotations: {kptkit.dev/commit: "2222"}}
status: {downstreamTargets: [{name: edge02.app.packagevariant-3}]}
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata: {name: no-commit}
status: {downstreamTargets: [{name: edge03.app.packagevariant-1}]}
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata: {name: no-targets, annotations: {kptkit.dev/commit: "3333"}}
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata: {name: bad-targets, annotations: {kptkit.dev/commit: "4444"}}
status: {downstreamTargets: {name: x}}
`
	items, err := kptpkg.Items("status.yaml", []byte(status))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Record{
		"default/edge01-app": {Revision: "edge01.app.packagevariant-1", Commit: "1111111111111111111111111111111111111111"},
		"prod/edge02-app":    {Revision: "edge02.app.packagevariant-3", Commit: "2222"},
	}
	if diff := cmp.Diff(want, Records(items)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzRecords: any status stream reads as records or is refused by the
// reader; Records never panics.
func FuzzRecords(f *testing.F) {
	f.Add("apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: a, annotations: {kptkit.dev/commit: x}}\nstatus: {downstreamTargets: [{name: r.p.w}]}\n")
	f.Add("kind: PackageVariant\nstatus: {downstreamTargets: [[]]}\nmetadata: {annotations: {kptkit.dev/commit: x}}\n")
	f.Fuzz(func(t *testing.T, s string) {
		items, err := kptpkg.Items("status.yaml", []byte(s))
		if err != nil {
			return
		}
		_ = Records(items)
	})
}

// TestCandidates: a package's revisions a variant's package may be, newest
// first — drafts and proposals by workspace number, then published
// revisions by number; the branch's head, revisions proposed for deletion
// and other packages' are none.
func TestCandidates(t *testing.T) {
	s := &pkgrev.Snapshot{Revisions: []pkgrev.Revision{
		{Name: "r.app.main", Package: "app", Revision: -1, Lifecycle: porch.LifecyclePublished},
		{Name: "r.app.packagevariant-1", Package: "app", Revision: 1, Lifecycle: porch.LifecyclePublished},
		{Name: "r.app.packagevariant-3", Package: "app", Lifecycle: porch.LifecycleDraft, Workspace: "packagevariant-3"},
		{Name: "r.app.packagevariant-2", Package: "app", Revision: 2, Lifecycle: porch.LifecyclePublished},
		{Name: "r.app.v0", Package: "app", Revision: 3, Lifecycle: porch.LifecycleDeletionProposed},
		{Name: "r.app.packagevariant-10", Package: "app", Lifecycle: porch.LifecycleProposed, Workspace: "packagevariant-10"},
		{Name: "r.app.review", Package: "app", Lifecycle: porch.LifecycleDraft, Workspace: "review"},
		{Name: "r.db.packagevariant-9", Package: "db", Lifecycle: porch.LifecycleDraft, Workspace: "packagevariant-9"},
	}}
	var got []string
	for _, r := range candidates(s, "app") {
		got = append(got, r.Name)
	}
	want := []string{"r.app.packagevariant-10", "r.app.packagevariant-3", "r.app.review", "r.app.packagevariant-2", "r.app.packagevariant-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
