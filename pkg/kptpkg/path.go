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
	for rest := p; ; {
		seg, more, found := strings.Cut(rest, "/")
		switch seg {
		case "", ".", "..":
			return fmt.Errorf("%s %q must stay inside its folder: no %q segment", what, p, seg)
		}
		if why := DotGit(seg); why != "" {
			return fmt.Errorf("%s %q: invalid path: %s", what, p, why)
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
