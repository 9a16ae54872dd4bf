package scan

import "testing"

// wordTexts are lines for the 8-bytes-at-a-time readers: spaces of every
// count up to and past a word, stops and quotes at every place, bytes of
// every kind.
var wordTexts = []string{
	"apiVersion: apps/v1 # c\nconfig.kubernetes.io/path:'a#b'  ::##\xff\x00:",
	"                 x\n        \n       \n         -  ",
	" a:b#c d:e#  f\t: :\r\n#\x80:",
	`"a\"b" 'it''s' "\\" 'c:\d'  "longer than a word\n"`,
	"{a: [b, c]}, {d?e}[;{=}]  ;;;;;;;;{;;;;;;;;[;;;;;;;;?;;;;;;;;};;;;;;;;]{{{{",
}

// eachLine calls f with every part of every text as a line (of every
// length, from every start), each with every capacity past it up to 9
// bytes more.
func eachLine(f func(line []byte)) {
	for _, s := range wordTexts {
		text := []byte(s)
		for start := range len(text) + 1 {
			for end := start; end <= len(text); end++ {
				for extra := range 10 {
					f(text[start:end:min(end+extra, len(text))])
				}
			}
		}
	}
}

// TestSpaces: spaces, 8 bytes at a time, counts the spaces a line starts
// with as a byte at a time does, whatever lies past the line.
func TestSpaces(t *testing.T) {
	t.Parallel()
	eachLine(func(line []byte) {
		want := 0
		for want < len(line) && line[want] == ' ' {
			want++
		}
		if got := spaces(line); got != want {
			t.Fatalf("spaces(%q (capacity %d)) = %d, want %d", line, cap(line), got, want)
		}
	})
}

// TestNextOf: nextOf (nextStop's colon or hash, a quoted scalar's quote
// or backslash), 8 bytes at a time, finds no place past the first of its
// two bytes at or after k that a byte at a time finds, nor before k.
func TestNextOf(t *testing.T) {
	t.Parallel()
	eachLine(func(line []byte) {
		for _, ab := range []string{":#", "'\\", "\"\\"} {
			for k := range len(line) {
				want := k
				for want < len(line) && line[want] != ab[0] && line[want] != ab[1] {
					want++
				}
				got := nextOf(line, k, ab[0], ab[1])
				if ab == ":#" {
					got = nextStop(line, k)
				}
				if got > want || got < k {
					t.Fatalf("nextOf(%q (capacity %d), %d, %q) = %d, the first is at %d", line, cap(line), k, ab, got, want)
				}
			}
		}
	})
}

// TestNextFlowStop: nextFlowStop, 8 bytes at a time, finds no place past
// the first of the flowStops at or after k that a byte at a time finds,
// nor before k.
func TestNextFlowStop(t *testing.T) {
	t.Parallel()
	eachLine(func(line []byte) {
		for k := range len(line) {
			want := k
			for want < len(line) && !flowStops[line[want]] {
				want++
			}
			if got := nextFlowStop(line, k); got > want || got < k {
				t.Fatalf("nextFlowStop(%q (capacity %d), %d) = %d, the first stop is at %d", line, cap(line), k, got, want)
			}
		}
	})
}
