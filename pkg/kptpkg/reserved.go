package kptpkg

import (
	"fmt"
	"strings"
)

// ReservedName is the folder kptkit keeps at the root of a folder it
// writes (an output, a package rendered in place) while it works: its lock
// holder, its staged files and the journal of each write. Nothing else
// writes there, and no package or file may be named so.
const ReservedName = ".kptkit"

// CheckReserved refuses a path (checked with CheckPath first) that has a
// segment kptkit reserves for its own work: .kptkit in any case, and the
// .<name>.kptkit-new and .<name>.kptkit-old folders and files earlier
// versions of kptkit kept beside a package while writing it (such a version,
// run on the same output, would take a package of that name for its own
// leftovers). what names the path in the error, as CheckPath's does.
func CheckReserved(what, p string) error {
	for _, seg := range strings.Split(p, "/") {
		if reservedSegment(seg) {
			return fmt.Errorf("%s %q: the name %q is kptkit's own (its scratch and journal): give it another name", what, p, seg)
		}
	}
	return nil
}

func reservedSegment(seg string) bool {
	if strings.EqualFold(strings.TrimRight(seg, ". "), ReservedName) {
		return true
	}
	return strings.HasPrefix(seg, ".") && (strings.HasSuffix(seg, ".kptkit-new") || strings.HasSuffix(seg, ".kptkit-old"))
}
