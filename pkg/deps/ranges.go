package deps

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Ranges parses semver ranges once per run: the same range string, however
// many versions carry it, is parsed one time.
type Ranges struct {
	m map[string]parsedRange
}

type parsedRange struct {
	c   *semver.Constraints
	err error
}

// NewRanges returns an empty cache.
func NewRanges() *Ranges { return &Ranges{m: map[string]parsedRange{}} }

// Parse returns the constraints of a range (Masterminds semver v3 syntax:
// `^1.2`, `~1.2.3`, `>=1.0 <2.0`, `1.2 - 1.4`, `1.x`, `1.0.0 || ^2`), or an
// error naming it. An empty range is no range: nil, nil.
func (r *Ranges) Parse(s string) (*semver.Constraints, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if p, ok := r.m[s]; ok {
		return p.c, p.err
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		err = &RangeError{Range: s, Err: err}
		c = nil
	}
	r.m[s] = parsedRange{c: c, err: err}
	return c, err
}

// RangeError is a range Masterminds semver cannot read.
type RangeError struct {
	Range string
	Err   error
}

func (e *RangeError) Error() string { return fmt.Sprintf("invalid range %q: %v", e.Range, e.Err) }

// Unwrap returns the semver error.
func (e *RangeError) Unwrap() error { return e.Err }

// rangeProblem names the package a bad range is for:
// `invalid range "^^1" for package db: improper constraint: ^^1`.
func rangeProblem(err error, pkg string) string {
	var re *RangeError
	if errors.As(err, &re) {
		return fmt.Sprintf("invalid range %q for package %s: %v", re.Range, pkg, re.Err)
	}
	return fmt.Sprintf("%v (package %s)", err, pkg)
}

// Allows reports whether v is inside the range; prereleases count only when
// the range names one or prereleases is set, as Masterminds semver has it.
func Allows(c *semver.Constraints, v *semver.Version, prereleases bool) bool {
	if c == nil {
		return prereleases || v.Prerelease() == ""
	}
	cc := *c
	cc.IncludePrerelease = prereleases
	return cc.Check(v)
}

// ParseVersion reads a catalog or inventory version: semver, with an
// optional leading "v" (Porch revisions are often v1, v2).
func ParseVersion(s string) (*semver.Version, error) {
	v, err := semver.NewVersion(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("%q is not a semantic version (major.minor.patch, as in 1.2.3 or v1.2.3)", s)
	}
	return v, nil
}
