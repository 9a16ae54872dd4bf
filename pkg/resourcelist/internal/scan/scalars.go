package scan

import (
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// How readers resolve a plain scalar: yaml.v3 (ResolveTag), which the
// builder follows and the emitter must write for, and a YAML 1.1 reader
// such as kubectl's (Ambiguous), for which the emitter quotes.

// numberLike reports whether s, which starts like a number (a digit, a
// sign or a dot), may be read as a number or a timestamp by a YAML 1.1 or
// 1.2 reader. False is certain; true calls for the full check. It spares
// the full check (a YAML parse) for ids, versions and checksums that start
// with a digit.
func numberLike(s string) bool {
	// yaml.v3 drops underscores before it reads a number: 0_B0 is 0b0.
	body := strings.ReplaceAll(strings.TrimLeft(s, "+-"), "_", "")
	switch body {
	case ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN":
		return true
	}
	radix := len(body) > 1 && body[0] == '0' && strings.IndexByte("xXoObB", body[1]) >= 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', strings.IndexByte("+-._: eEtTzZ", c) >= 0:
			// digits, signs, separators, exponents, timestamps' T and Z
		case strings.IndexByte("abcdfABCDFxXoO", c) >= 0:
			if !radix {
				return false // hex digits and radix letters need a 0x, 0o or 0b
			}
		default:
			return false
		}
	}
	return true
}

// decimal reports whether s is an integer written plainly: an optional
// minus, then 0 or up to 18 digits without a leading zero. Every YAML reader
// takes it for an int (it fits in 64 bits); it spares the full check for
// the commonest number of all (indexes, counts, ports).
func decimal(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// ResolveTag returns the tag yaml.v3 reads a plain v with: !!str, or !!int,
// !!float, !!bool, !!null, !!timestamp... The cheap test up front answers
// for almost every value; yaml.v3 answers for the rest.
func ResolveTag(v string) string {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return yaml.NodeTagBool
	case "null", "Null", "NULL", "~":
		return yaml.NodeTagNull
	}
	if v != "" {
		switch c := v[0]; {
		case c >= '0' && c <= '9', c == '+', c == '-', c == '.':
			if decimal(v) {
				return yaml.NodeTagInt
			}
			if !numberLike(v) && !strings.HasPrefix(v, "---") && !strings.HasPrefix(v, "...") {
				return yaml.NodeTagString
			}
		case c == '~', c == '<':
		case len(v) > 5:
			return yaml.NodeTagString
		default:
			switch strings.ToLower(v) {
			case "true", "false", "null":
			default:
				return yaml.NodeTagString
			}
		}
	}
	if strings.HasPrefix(v, "---") || strings.HasPrefix(v, "...") {
		return "" // document markers: the caller declines
	}
	var n yaml.Node
	switch err := yaml.Unmarshal([]byte(v), &n); {
	case err != nil || len(n.Content) != 1:
		return "" // unsure: the caller declines
	case n.Content[0].Kind != yaml.ScalarNode:
		return yaml.NodeTagString // "- c" parses as a list, but resolves as a string
	}
	switch tag := n.Content[0].Tag; tag {
	case yaml.NodeTagString, yaml.NodeTagInt, yaml.NodeTagFloat, yaml.NodeTagBool, yaml.NodeTagNull, "!!timestamp":
		return tag
	}
	return "" // a merge key or another oddity: the caller declines
}

// Ambiguous reports whether a YAML 1.1 reader would not read s as a string.
// The cheap test up front spares the full check for almost every value.
func Ambiguous(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '+', c == '-', c == '.':
		if !numberLike(s) {
			return false
		}
	case c == '~':
	default:
		if len(s) > 5 {
			return false
		}
		switch strings.ToLower(s) {
		case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
			return boolWords()[s] // "true" in every new item's local-config annotation
		default:
			return false
		}
	}
	return yaml.IsValueNonString(s)
}

// boolWords holds yaml.IsValueNonString's answer for every way of writing
// y, yes, n, no, on, off, true, false and null in upper and lower case
// letters (92 words), asked once.
var boolWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"y", "yes", "n", "no", "on", "off", "true", "false", "null"} {
		for mask := range 1 << len(w) {
			b := []byte(w)
			for i := range b {
				if mask&(1<<i) != 0 {
					b[i] -= 'a' - 'A'
				}
			}
			m[string(b)] = yaml.IsValueNonString(string(b))
		}
	}
	return m
})
