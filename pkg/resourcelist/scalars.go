package resourcelist

import "strings"

// numberLike reports whether s, which starts like a number (a digit, a
// sign or a dot), may be read as a number or a timestamp by a YAML 1.1 or
// 1.2 reader. False is certain; true calls for the full check. It spares
// the full check (a YAML parse) for ids, versions and checksums that start
// with a digit.
func numberLike(s string) bool {
	body := strings.TrimLeft(s, "+-")
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
