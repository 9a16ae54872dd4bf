package fanout

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Porch's limits on a PackageVariant's name.
const (
	MaxNameLength  = 63
	NameHashLength = 8
)

// Identifier is what Porch matches a set's children by: the set's name and
// the child's downstream repository and package.
func Identifier(set, repo, pkg string) string { return set + "-" + repo + "-" + pkg }

// Name returns the name of the child with the given identifier: the
// identifier made a DNS-1123 label (lower case, every other character
// "-", no "-" at either end), then, when longer than 63 characters, its
// first 54, "-" and the first 8 hex digits of its SHA-1, as Porch does.
func Name(id string) (string, error) {
	s := dns1123(id)
	if s == "" {
		return "", fmt.Errorf("%q has no letter or digit to make a name of", id)
	}
	if len(s) <= MaxNameLength {
		return s, nil
	}
	sum := sha1.Sum([]byte(s))
	stub := MaxNameLength - NameHashLength - 1
	return s[:stub] + "-" + hex.EncodeToString(sum[:])[:NameHashLength], nil
}

// dns1123 lower-cases s and turns every character that is not a letter or
// digit into "-", then trims "-" from both ends.
func dns1123(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			out = append(out, byte(r))
		default:
			out = append(out, '-')
		}
	}
	return strings.Trim(string(out), "-")
}

var subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// checkRepo checks a downstream repository: the name of a Repository
// object, so a DNS-1123 subdomain.
func checkRepo(repo string) error {
	switch {
	case repo == "":
		return errors.New("downstream repo is empty")
	case len(repo) > 253 || !subdomain.MatchString(repo):
		return fmt.Errorf("downstream repo %q is not a valid Repository name: a lowercase RFC 1123 subdomain of at most 253 characters ('a-z', '0-9', '-', '.')", repo)
	}
	return nil
}

// checkPackage checks a downstream package: a relative folder path within
// its repository (kptpkg.CheckSegments: no empty, "." or ".." segment, no
// name git keeps for its own folder), without the spaces, control
// characters and backslashes Porch refuses in a package's name.
func checkPackage(pkg string) error {
	if pkg == "" {
		return errors.New("downstream package is empty")
	}
	if strings.ContainsFunc(pkg, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\\' }) {
		return fmt.Errorf("downstream package %q is not a valid package name: it holds spaces, control characters or '\\'", pkg)
	}
	switch bad := kptpkg.CheckSegments(pkg); {
	case bad == nil:
		return nil
	case bad.DotGit != "":
		return fmt.Errorf("downstream package %q is not a valid package name: %s", pkg, bad.DotGit)
	default:
		return fmt.Errorf("downstream package %q is not a valid package name: a relative folder path without empty, '.' or '..' parts", pkg)
	}
}
