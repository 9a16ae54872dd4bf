// Package version says which build of kptkit a binary is: the module
// version and the VCS revision it was built from. `make build` stamps both
// with -ldflags -X (the Go toolchain records no VCS information in a git
// worktree or with -buildvcs=false); `go install
// github.com/kptkit/kptkit/cmd/kptkit@v1.2.3` records the module version in
// the build information, and a pseudo-version
// (v0.0.0-20260101120000-0123456789ab) carries the revision.
package version

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped by the Makefile:
//
//	-X github.com/kptkit/kptkit/internal/version.version=v0.0.0-20260101120000-0123456789ab
//	-X github.com/kptkit/kptkit/internal/version.revision=0123456789abcdef...
var version, revision string

// Info is what a binary knows of its build.
type Info struct {
	// Version is the module version: a tag (v0.3.0), a pseudo-version, or
	// "(devel)" when nothing says (a plain go build).
	Version string
	// Revision is the VCS commit, "" when unknown.
	Revision string
	// Modified reports uncommitted changes in the tree it was built from.
	Modified bool
	// Go is the toolchain's version.
	Go string
}

// Get returns this binary's build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return From(bi, version, revision)
}

// pseudo matches the end of a Go pseudo-version: the commit time and the
// first 12 hex digits of the revision, then maybe +dirty or +incompatible.
var pseudo = regexp.MustCompile(`(?:^|[-.])\d{14}-([0-9a-f]{12})(\+.*)?$`)

// From reads a build's information: the stamped version and revision
// first, then the Go build information (its VCS settings, then the
// module's version, whose pseudo-version names a revision).
func From(bi *debug.BuildInfo, stampedVersion, stampedRevision string) Info {
	info := Info{Version: stampedVersion, Revision: stampedRevision, Go: runtime.Version()}
	if bi != nil {
		info.Go = bi.GoVersion
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && info.Revision == "":
				info.Revision = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				info.Modified = true
			}
		}
		if info.Version == "" && bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
	}
	if info.Version == "" {
		info.Version = "(devel)"
	}
	if strings.HasSuffix(info.Version, "+dirty") {
		info.Modified = true
	}
	if m := pseudo.FindStringSubmatch(info.Version); m != nil && info.Revision == "" {
		info.Revision = m[1]
	}
	return info
}

// String is what `kptkit version` and a function's --version print after
// the program's name: `v0.3.0 (revision 0123456789ab…, go1.26.8)`.
func (i Info) String() string {
	rev := i.Revision
	if rev == "" {
		rev = "unknown: built without `make build` or VCS information"
	}
	s := i.Version + " (revision " + rev
	if i.Modified && !strings.HasSuffix(i.Version, "+dirty") {
		s += ", modified"
	}
	return s + ", " + i.Go + ")"
}

// Tag is the version as an image tag: characters a tag cannot hold become
// "-" (v0.0.0-20260101120000-0123456789ab+dirty → …-dirty), "(devel)" is
// "devel".
func (i Info) Tag() string {
	t := strings.Trim(i.Version, "()")
	t = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, t)
	if t == "" || t[0] == '.' || t[0] == '-' {
		t = "v" + t
	}
	return t[:min(len(t), 128)]
}
