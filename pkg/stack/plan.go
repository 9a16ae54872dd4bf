package stack

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
)

// Change is what an apply does to one resource.
type Change struct {
	Verb  string // created, updated or deleted
	Entry v1alpha1.StackResource
	// Detail says what an update changed: its content, its associations.
	Detail string
	res    *resource // nil for a deletion
	pos    int       // the entry's index in the new record (not deletions)
}

// Message is the change as its result shows it: `created Label/lucid_einstein`.
func (c Change) Message() string {
	msg := c.Verb + " " + c.Entry.Ref()
	if c.Detail != "" {
		msg += ": " + c.Detail
	}
	return msg
}

// Plan compares the record with the package's resources (entries without
// ids, each identity once, in package order) and returns the new record and
// the changes. With no change it returns the record as it was: reordering is
// not a change.
func Plan(old v1alpha1.StackStatus, rs []v1alpha1.StackResource, name string, now time.Time) (v1alpha1.StackStatus, []Change) {
	res := make([]*resource, len(rs))
	for i, e := range rs {
		res[i] = &resource{key: e.Key(), entry: e}
	}
	return plan(old, res, name, now)
}

// plan is Plan over the resources collect read; their identities are
// unique.
func plan(old v1alpha1.StackStatus, rs []*resource, name string, now time.Time) (v1alpha1.StackStatus, []Change) {
	// before holds the recorded entries not (yet) found in the package: what
	// is left of it after the loop is deleted.
	before := make(map[string]v1alpha1.StackResource, len(old.Resources))
	for _, e := range old.Resources {
		before[e.Key()] = e
	}
	var (
		changes []Change
		next    = make([]v1alpha1.StackResource, len(rs))
	)
	for i, r := range rs {
		next[i] = r.entry
		c := Change{Verb: "created", Entry: r.entry, res: r, pos: i}
		if e, ok := before[r.key]; ok {
			delete(before, r.key)
			detail, changed := diff(e, r.entry)
			if !changed {
				next[i] = e
				continue
			}
			next[i].ID = e.ID
			c = Change{Verb: "updated", Entry: next[i], Detail: detail, res: r, pos: i}
		}
		if changes == nil {
			// Room for every change to come at once: appending 10,000 one
			// by one allocates five times their size.
			changes = make([]Change, 0, len(rs)-i+len(before))
		}
		changes = append(changes, c)
	}
	for _, e := range old.Resources {
		if _, gone := before[e.Key()]; gone {
			changes = append(changes, Change{Verb: "deleted", Entry: e})
		}
	}
	if len(changes) == 0 {
		return old, nil
	}
	st := stamp(old, next, name, now)
	for i := range changes {
		if changes[i].Verb == "created" {
			changes[i].Entry.ID = st.Resources[changes[i].pos].ID
		}
	}
	return st, changes
}

// diff says how a recorded entry differs from the resource now: its
// content (checksum, apiVersion) and its associations.
func diff(was, is v1alpha1.StackResource) (string, bool) {
	var details []string
	if was.Checksum != is.Checksum || was.APIVersion != is.APIVersion {
		details = append(details, "content changed")
	}
	for _, a := range is.Associations {
		if !slices.Contains(was.Associations, a) {
			details = append(details, "associated with "+a.String())
		}
	}
	for _, a := range was.Associations {
		if !slices.Contains(is.Associations, a) {
			details = append(details, "no longer associated with "+a.String())
		}
	}
	if len(details) == 1 && details[0] == "content changed" {
		return "", true
	}
	return strings.Join(details, ", "), len(details) > 0
}

// stamp returns the record after a change: a new revision at now, and ids
// for the new resources.
func stamp(old v1alpha1.StackStatus, resources []v1alpha1.StackResource, name string, now time.Time) v1alpha1.StackStatus {
	at := now.UTC().Format(time.RFC3339)
	st := old
	st.Revision++
	st.UpdatedAt = decode.AnyScalar(at)
	if st.CreatedAt == "" {
		st.CreatedAt = decode.AnyScalar(at)
	}
	if st.StackID == "" {
		st.StackID = newID("stack", name, at)
	}
	used := make(map[string]bool, len(resources))
	for _, r := range resources {
		if r.ID != "" {
			used[r.ID] = true
		}
	}
	rev := string(binary.AppendUvarint(nil, uint64(st.Revision)))
	for i, r := range resources {
		if r.ID != "" {
			continue
		}
		key := r.Key()
		for attempt := 0; ; attempt++ {
			id := newID(st.StackID, rev, key, string(rune(attempt)))
			if !used[id] {
				resources[i].ID, used[id] = id, true
				break
			}
		}
	}
	st.Resources = resources
	return st
}

// newID derives an id, 16 lowercase hex digits, from its parts.
func newID(parts ...string) string {
	var buf [128]byte // room for the parts of most ids: they do not escape
	b := buf[:0]
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	sum := sha256.Sum256(b)
	var id [16]byte
	hex.Encode(id[:], sum[:8])
	return string(id[:])
}
