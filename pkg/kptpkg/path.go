package kptpkg

import (
	"fmt"
	"path"
	"strings"
)

// CheckPath is the one check for a path a package, a fleet or a function
// names: a non-empty, slash-separated path relative to its folder that stays
// inside it — no "." or ".." segment, no empty segment, not absolute, no
// backslash or NUL (which other systems read as separators or ends) — and
// that git would check out: no segment git refuses as a name of its folder
// .git (DotGit). what names the path in the error ("downstream repo",
// "file").
func CheckPath(what, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%s is empty", what)
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("%s %q: a backslash or NUL is not allowed in a path", what, p)
	case path.IsAbs(p) || (len(p) > 1 && p[1] == ':'):
		return fmt.Errorf("%s %q is absolute: it must be relative", what, p)
	}
	switch bad := CheckSegments(p); {
	case bad == nil:
		return nil
	case bad.DotGit != "":
		return fmt.Errorf("%s %q: invalid path: %s", what, p, bad.DotGit)
	default:
		return fmt.Errorf("%s %q must stay inside its folder: no %q segment", what, p, bad.Name)
	}
}

// Segment is a segment of a path CheckSegments refuses.
type Segment struct {
	Name string
	// DotGit is why git refuses the name as that of its folder .git
	// (DotGit); "" for an empty, "." or ".." segment.
	DotGit string
}

// CheckSegments checks each segment of the slash path p, in order, and
// returns the first that no path kptkit reads or writes may hold: an
// empty, "." or ".." segment (the path would not stay inside its folder,
// or would not name each folder it goes through), or a name git refuses
// for its folder .git; nil when there is none. It is the segment check
// CheckPath, kptkit render's check of the paths a function writes and
// fan-out-variants' check of a downstream package share, each with its own
// rules around it and its own words.
func CheckSegments(p string) *Segment {
	for rest := p; ; {
		seg, more, found := strings.Cut(rest, "/")
		switch seg {
		case "", ".", "..":
			return &Segment{Name: seg}
		}
		if why := DotGit(seg); why != "" {
			return &Segment{Name: seg, DotGit: why}
		}
		if !found {
			return nil
		}
		rest = more
	}
}

// Inside reports whether path p is dir or lies below it (slash paths).
func Inside(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}
