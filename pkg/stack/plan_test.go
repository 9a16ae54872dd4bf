package stack_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/stack"
)

var (
	t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Hour)
)

func entry(kind, name, sum string, assoc ...v1alpha1.StackAssociation) v1alpha1.StackResource {
	if assoc == nil {
		assoc = []v1alpha1.StackAssociation{}
	}
	return v1alpha1.StackResource{APIVersion: "influxdata.com/v2alpha1", Kind: kind, PkgName: name, Checksum: sum, Associations: assoc}
}

func withID(e v1alpha1.StackResource, id string) v1alpha1.StackResource {
	e.ID = id
	return e
}

func moved(e v1alpha1.StackResource, apiVersion string) v1alpha1.StackResource {
	e.APIVersion = apiVersion
	return e
}

var label = v1alpha1.StackAssociation{Kind: "Label", PkgName: "lucid_einstein"}

// applied is the record after applying rs to an empty stack at t0.
func applied(rs ...v1alpha1.StackResource) v1alpha1.StackStatus {
	st, _ := stack.Plan(v1alpha1.StackStatus{}, rs, "s1", t0)
	return st
}

func messages(cs []stack.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Message())
	}
	return out
}

func TestPlan(t *testing.T) {
	t.Parallel()
	lbl := entry("Label", "lucid_einstein", "sha256:1")
	bkt := entry("Bucket", "pristine_noir", "sha256:2", label)
	first := applied(lbl, bkt)
	lblID, bktID := first.Resources[0].ID, first.Resources[1].ID
	stamped := func(rev int, rs ...v1alpha1.StackResource) v1alpha1.StackStatus {
		return v1alpha1.StackStatus{StackID: first.StackID, CreatedAt: first.CreatedAt, UpdatedAt: decode.AnyScalar(t1.Format(time.RFC3339)), Revision: rev, Resources: append([]v1alpha1.StackResource{}, rs...)}
	}
	for _, tc := range []struct {
		name    string
		old     v1alpha1.StackStatus
		now     []v1alpha1.StackResource
		want    v1alpha1.StackStatus
		changes []string
	}{{
		name: "unchanged keeps the record as it is",
		old:  first,
		now:  []v1alpha1.StackResource{lbl, bkt},
		want: first,
	}, {
		name: "reordering is not a change",
		old:  first,
		now:  []v1alpha1.StackResource{bkt, lbl},
		want: first,
	}, {
		name:    "an edit is an update that keeps the id",
		old:     first,
		now:     []v1alpha1.StackResource{entry("Label", "lucid_einstein", "sha256:3"), bkt},
		want:    stamped(2, withID(entry("Label", "lucid_einstein", "sha256:3"), lblID), withID(bkt, bktID)),
		changes: []string{"updated Label/lucid_einstein"},
	}, {
		name:    "a new API version is an update",
		old:     first,
		now:     []v1alpha1.StackResource{lbl, moved(bkt, "influxdata.com/v2alpha2")},
		want:    stamped(2, withID(lbl, lblID), withID(moved(bkt, "influxdata.com/v2alpha2"), bktID)),
		changes: []string{"updated Bucket/pristine_noir"},
	}, {
		name:    "associations removed",
		old:     first,
		now:     []v1alpha1.StackResource{entry("Bucket", "pristine_noir", "sha256:2")},
		want:    stamped(2, withID(entry("Bucket", "pristine_noir", "sha256:2"), bktID)),
		changes: []string{"updated Bucket/pristine_noir: no longer associated with Label/lucid_einstein", "deleted Label/lucid_einstein"},
	}, {
		name:    "content and associations",
		old:     first,
		now:     []v1alpha1.StackResource{lbl, entry("Bucket", "pristine_noir", "sha256:9", label, v1alpha1.StackAssociation{Kind: "Label", PkgName: "team"})},
		want:    stamped(2, withID(lbl, lblID), withID(entry("Bucket", "pristine_noir", "sha256:9", label, v1alpha1.StackAssociation{Kind: "Label", PkgName: "team"}), bktID)),
		changes: []string{"updated Bucket/pristine_noir: content changed, associated with Label/team"},
	}, {
		name:    "everything removed",
		old:     first,
		now:     nil,
		want:    stamped(2),
		changes: []string{"deleted Label/lucid_einstein", "deleted Bucket/pristine_noir"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, changes := stack.Plan(tc.old, tc.now, "s1", t1)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.changes, messages(changes)); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// A resource deleted and added again gets a new id, even at the same time.
func TestPlanReaddedGetsNewID(t *testing.T) {
	t.Parallel()
	lbl, task := entry("Label", "l", "sha256:1"), entry("Task", "t", "sha256:2")
	st := applied(lbl)
	st, _ = stack.Plan(st, []v1alpha1.StackResource{lbl, task}, "s1", t0)
	firstID := st.Resources[1].ID
	st, _ = stack.Plan(st, []v1alpha1.StackResource{lbl}, "s1", t0)
	st, changes := stack.Plan(st, []v1alpha1.StackResource{lbl, task}, "s1", t0)
	if diff := cmp.Diff([]string{"created Task/t"}, messages(changes)); diff != "" {
		t.Fatalf("changes (-want +got):\n%s", diff)
	}
	if st.Resources[1].ID == firstID {
		t.Errorf("re-added Task/t got its old id %s again", firstID)
	}
	if changes[0].Entry.ID != st.Resources[1].ID {
		t.Errorf("the change names id %s, the record %s", changes[0].Entry.ID, st.Resources[1].ID)
	}
}

// Ids are 16 lowercase hex digits, unique in the stack, and the same for the
// same input.
func TestPlanIDs(t *testing.T) {
	t.Parallel()
	var rs []v1alpha1.StackResource
	for i := range 2000 {
		rs = append(rs, entry("ConfigMap", fmt.Sprintf("cm-%d", i), "sha256:0"))
	}
	a, _ := stack.Plan(v1alpha1.StackStatus{}, rs, "big", t0)
	b, _ := stack.Plan(v1alpha1.StackStatus{}, rs, "big", t0)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two plans of the same input differ:\n%s", diff)
	}
	seen := map[string]bool{a.StackID: true}
	for _, r := range a.Resources {
		if !v1alpha1.IsID(r.ID) || seen[r.ID] {
			t.Fatalf("%s: id %q is not a new 16-hex-digit id", r.Ref(), r.ID)
		}
		seen[r.ID] = true
	}
}
