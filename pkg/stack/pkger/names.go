package pkger

import (
	"fmt"
	"regexp"
	"strings"
)

// dns1123MaxLength is the most characters a DNS-1123 label has.
const dns1123MaxLength = 63

const (
	dns1123Format = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123Msg    = "a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
)

var dns1123 = regexp.MustCompile("^" + dns1123Format + "$")

// nameProblems are pkger's complaints about a metadata.name (isDNS1123Label):
// none for a DNS-1123 label of at most 63 characters. One liberty: `_`
// counts as `-`, because the names of pkger's own stack design document
// (lucid_einstein, the scenario kptkit's stack tests replay) have them.
func nameProblems(name string) []string {
	var out []string
	if len(name) > dns1123MaxLength {
		out = append(out, fmt.Sprintf("must be no more than %d characters", dns1123MaxLength))
	}
	if !dns1123.MatchString(strings.ReplaceAll(name, "_", "-")) {
		out = append(out, dns1123Msg+" (e.g. 'my-name' or '123-abc', regex used for validation is '"+dns1123Format+"')")
	}
	return out
}

// validDNSName reports whether pkger accepts a metadata.name.
func validDNSName(name string) bool { return len(nameProblems(name)) == 0 }

// checkName returns pkger's failure for a metadata.name it refuses, or nil.
func checkName(name string) *failure {
	problems := nameProblems(name)
	if len(problems) == 0 {
		return nil
	}
	f := fail("metadata.name", "name %q is invalid; %s", name, strings.Join(problems, "; "))
	return &f
}

// ValidName reports whether pkger accepts a metadata.name (a DNS-1123
// label of at most 63 characters; see nameProblems for `_`).
func ValidName(name string) bool { return validDNSName(name) }
