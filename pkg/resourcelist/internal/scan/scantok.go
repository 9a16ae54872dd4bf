package scan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// tok is a one-line scalar the scan read: plain, single- or double-quoted.
// It has four fields, so that the compiler keeps it in registers: a larger
// struct is copied through the stack, written a byte at a time and read
// back 16 bytes at a time (a store-forwarding stall per scalar).
type tok struct {
	start, end int  // its text in the line, quotes left out
	next       int  // where the line goes on: past the colon for a key
	bits       uint // its quote, and tokEscaped, tokKey
}

const (
	tokEscaped = 1 << 8 // the text needs decoding ('' or a backslash)
	tokKey     = 1 << 9 // it is followed by ": " or a final ":", a mapping's key
)

// quote is 0, '\” or '"'.
func (t tok) quote() byte { return byte(t.bits) }

func (t tok) escaped() bool { return t.bits&tokEscaped != 0 }

func (t tok) key() bool { return t.bits&tokKey != 0 }

// newTok returns the token of the text line[start:end], quoted with quote,
// after which the line goes on at next.
func newTok(start, end, next int, quote byte, escaped, key bool) tok {
	bits := uint(quote)
	if escaped {
		bits |= tokEscaped
	}
	if key {
		bits |= tokKey
	}
	return tok{start: start, end: end, next: next, bits: bits}
}

// readScalar reads a scalar at line[k], in block context or inside a
// flow collection. A plain one stops at a comment (" #"), a mapping
// indicator (": ", or a final ":" in block context) or the line's end, and
// inside a flow collection at a flow indicator; there, a colon followed by
// anything but a space, a flow indicator or a '#' is part of it (a URL),
// and one with another colon, a '?' or a comment in it is unsure. A quoted
// one must close on the line.
func readScalar(line []byte, k int, flow bool) (tok, bool) {
	if line[k] == '\'' || line[k] == '"' {
		return readQuoted(line, k, flow)
	}
	if !plainStart(line, k, flow) {
		return tok{}, false
	}
	key, j := false, k
	stops := &blockStops
	if flow {
		stops = &flowStops
		j = nextFlowStop(line, k)
	} else {
		j = nextStop(line, k)
	}
loop:
	for ; j < len(line); j++ {
		c := line[j]
		if !stops[c] {
			continue // none of the cases below
		}
		switch {
		case c == ':' && j+1 < len(line) && line[j+1] == ' ', c == ':' && j+1 == len(line) && !flow:
			key = true
			break loop
		case c == ':' && flow && (j+1 == len(line) || strings.IndexByte(",[]{}#", line[j+1]) >= 0):
			return tok{}, false // yaml.v3 reads these otherwise than by the spec: unsure
		case c == '?' && flow:
			return tok{}, false // yaml.v3 ends the scalar there, and fails
		case c == '#' && line[j-1] == ' ':
			if flow {
				return tok{}, false // a comment: the collection does not close on this line
			}
			break loop
		case flow && strings.IndexByte(",[]{}", c) >= 0:
			break loop
		}
	}
	next := j
	if key {
		next = j + 1
	}
	return newTok(k, trimRight(line, k, j), next, 0, false, key), true
}

// blockStops and flowStops mark the bytes a plain scalar may stop at: a
// colon or a comment's hash anywhere, a flow indicator (and yaml.v3's '?')
// inside a flow collection.
var (
	blockStops = [256]bool{':': true, '#': true}
	flowStops  = [256]bool{':': true, '#': true, ',': true, '[': true, ']': true, '{': true, '}': true, '?': true}
)

// spaces returns how many spaces line starts with. It reads 8 bytes at a
// time, up to line's capacity (what lies past line is left out): no branch
// per space, whose count changes from line to line.
func spaces(line []byte) int {
	i := 0
	for ; i+8 <= cap(line); i += 8 {
		if x := binary.LittleEndian.Uint64(line[i:i+8:cap(line)]) ^ ' '*ones; x != 0 {
			return min(i+bits.TrailingZeros64(x)/8, len(line))
		}
		if i+8 >= len(line) {
			return len(line)
		}
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

// nextStop returns where the first colon or hash at or after line[k] is,
// or a place before it (at most len(line)).
func nextStop(line []byte, k int) int { return nextOf(line, k, ':', '#') }

// nextOf returns where the first byte a or b at or after line[k] is, or a
// place before it (at most len(line)). It reads 8 bytes at a time, up to
// line's capacity (what lies past line is left out): no branch per byte,
// whose count changes from scalar to scalar.
func nextOf(line []byte, k int, a, b byte) int {
	for ; k+8 <= cap(line) && k < len(line); k += 8 {
		w := binary.LittleEndian.Uint64(line[k : k+8 : cap(line)])
		if m := zeros(w^uint64(a)*ones) | zeros(w^uint64(b)*ones); m != 0 {
			return min(k+bits.TrailingZeros64(m)/8, len(line))
		}
	}
	return min(k, len(line))
}

// nextFlowStop returns where the first of the flowStops at or after
// line[k] is, or a place before it (at most len(line)), as nextOf does.
func nextFlowStop(line []byte, k int) int {
	for ; k+8 <= cap(line) && k < len(line); k += 8 {
		w := binary.LittleEndian.Uint64(line[k : k+8 : cap(line)])
		b := w | 0x20*ones // '[' and '{' are then '{', ']' and '}' are '}'
		m := zeros(w^':'*ones) | zeros(w^'#'*ones) | zeros(w^','*ones) | zeros(w^'?'*ones) |
			zeros(b^'{'*ones) | zeros(b^'}'*ones)
		if m != 0 {
			return min(k+bits.TrailingZeros64(m)/8, len(line))
		}
	}
	return min(k, len(line))
}

// zeros has the high bit set of the first byte of w that is 0 (the lowest
// one: no borrow reaches it), and maybe of later ones; it is 0 when w has
// no 0 byte.
func zeros(w uint64) uint64 {
	return (w - ones) &^ w & (0x80 * ones)
}

func trimRight(line []byte, start, end int) int {
	for end > start && line[end-1] == ' ' {
		end--
	}
	return end
}

// plainStart reports whether a plain scalar can start at line[k]: a
// conservative set of first characters (no indicators, nothing beyond
// ASCII).
func plainStart(line []byte, k int, flow bool) bool {
	switch c := line[k]; {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	case c == '-':
		// "- " starts an entry; in flow, "-," and the like are unsure.
		return k+1 < len(line) && line[k+1] != ' ' && !(flow && strings.IndexByte(",[]{}", line[k+1]) >= 0)
	default:
		return strings.IndexByte("./_~$(=+^;)", c) >= 0
	}
}

// readQuoted reads a quoted scalar at line[k] that closes on the line,
// then what may follow it: the line's end, a comment, or the colon of a
// key; inside a flow collection also a flow indicator.
func readQuoted(line []byte, k int, flow bool) (tok, bool) {
	q := line[k]
	escaped, j := false, k+1
	for j = nextOf(line, j, q, '\\'); j < len(line); j = nextOf(line, j+1, q, '\\') {
		c := line[j]
		if q == '\'' && c == '\'' {
			if j+1 < len(line) && line[j+1] == '\'' {
				escaped = true
				j++
				continue
			}
			break
		}
		if q == '"' && c == '\\' {
			if j+1 == len(line) || strings.IndexByte(`\"/ntr0abefv `, line[j+1]) < 0 {
				return tok{}, false
			}
			escaped = true
			j++
			continue
		}
		if q == '"' && c == '"' {
			break
		}
	}
	if j == len(line) {
		return tok{}, false // it goes on on the next line
	}
	after := j + 1
	switch {
	case after < len(line) && line[after] == ':' && (after+1 == len(line) || line[after+1] == ' '):
		return newTok(k+1, j, after+1, q, escaped, true), true
	case flow:
		return newTok(k+1, j, after, q, escaped, false), true
	}
	n := after + spaces(line[after:])
	if n < len(line) && (n == after || line[n] != '#') {
		return tok{}, false
	}
	return newTok(k+1, j, n, q, escaped, false), true
}

// decode appends a scalar's value to the scan's text and returns its span.
func (s *Scanner) decode(line []byte, t tok) (span, bool) {
	start := len(s.text)
	if t.escaped() {
		s.text = appendScalar(s.text, line[t.start:t.end], t)
	} else {
		addBytes(&s.text, line[t.start:t.end])
	}
	if len(s.text) > 1<<31 {
		return span{}, false
	}
	return span{uint32(start), uint32(len(s.text))}, true
}

// appendScalar appends the value of the scalar t, whose text is raw.
func appendScalar(dst, raw []byte, t tok) []byte {
	switch {
	case !t.escaped():
		return append(dst, raw...)
	case t.quote() == '\'':
		return append(dst, strings.ReplaceAll(string(raw), "''", "'")...)
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' {
			i++
			c = unescape(raw[i])
		}
		dst = append(dst, c)
	}
	return dst
}

// unescape returns the character a double-quoted escape stands for (one
// of those readQuoted lets through).
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	case 'a':
		return 7
	case 'b':
		return 8
	case 'e':
		return 0x1b
	case 'f':
		return '\f'
	case 'v':
		return '\v'
	}
	return c // \\, \", \/ and "\ "
}

// RootScalar reads a root key's text (text, from the key's line to the
// next key's) that holds a one-line string: "name: value", plain or quoted
// without escapes, nothing after it, no other line. It returns the value,
// or false when the text is anything else (yaml.v3 reads that): another
// line, a tab, a character yaml.v3 refuses...
func RootScalar(text []byte) (string, bool) {
	line, rest, _ := bytes.Cut(text, []byte("\n"))
	if len(line) == 0 || len(rest) > 0 || bytes.ContainsAny(line, "\r\t") || !plainText(line) {
		return "", false
	}
	k, ok := readScalar(line, 0, false)
	if !ok || !k.key() || k.quote() != 0 || k.end > 1000 { // yaml.v3 takes no key of over 1024 characters
		return "", false
	}
	j := k.next + spaces(line[k.next:])
	if j == k.next || j == len(line) {
		return "", false
	}
	v, ok := readScalar(line, j, false)
	end := len(line) // where the value's text must end: the line's end, or its closing quote
	if v.quote() != 0 {
		end--
	}
	if !ok || v.key() || v.escaped() || v.next != len(line) || v.end != end {
		return "", false
	}
	s := string(line[v.start:v.end])
	if v.quote() == 0 && ResolveTag(s) != yaml.NodeTagString {
		return "", false
	}
	return s, true
}
