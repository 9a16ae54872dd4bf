package selector

import (
	"regexp"
	"strings"

	"github.com/kptkit/kptkit/pkg/decode"
)

// Kubernetes' rules for label keys (a qualified name: an optional DNS
// subdomain prefix and "/", then a name) and label values.
var (
	namePart  = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

const (
	maxNameLen      = 63
	maxPrefixLen    = 253
	nameFormat      = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	prefixFormat    = "prefix part must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, '-' or '.', starting and ending with an alphanumeric character"
	valueFormat     = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	qualifiedFormat = "a qualified name must be a name part with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)

// checkKey checks a label key as Kubernetes does.
func checkKey(path, key string) []decode.Error {
	var msgs []string
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		name = key
	}
	switch {
	case strings.Contains(name, "/"):
		msgs = append(msgs, qualifiedFormat)
	case name == "":
		msgs = append(msgs, "name part must be non-empty")
	case len(name) > maxNameLen:
		msgs = append(msgs, "name part must be no more than 63 characters")
	case !namePart.MatchString(name):
		msgs = append(msgs, nameFormat)
	}
	if hasPrefix {
		switch {
		case prefix == "":
			msgs = append(msgs, "prefix part must be non-empty")
		case len(prefix) > maxPrefixLen:
			msgs = append(msgs, "prefix part must be no more than 253 characters")
		case !subdomain.MatchString(prefix):
			msgs = append(msgs, prefixFormat)
		}
	}
	errs := make([]decode.Error, 0, len(msgs))
	for _, m := range msgs {
		errs = append(errs, decode.Invalid(path, key, m))
	}
	return errs
}

// checkValue checks a label value as Kubernetes does.
func checkValue(path, value string) []decode.Error {
	switch {
	case len(value) > maxNameLen:
		return []decode.Error{decode.Invalid(path, value, "must be no more than 63 characters")}
	case value != "" && !namePart.MatchString(value):
		return []decode.Error{decode.Invalid(path, value, valueFormat)}
	}
	return nil
}
