package scan

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSplit: where Split finds the root keys and the items' entries, or
// that it cannot be sure of them (the list is then parsed whole).
func TestSplit(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	tests := []struct {
		name string
		in   string
		want *List // nil: unsure
	}{
		{"items between keys", head + "items:\n- a: 1\n- b: 2\n  c: 3\nfunctionConfig:\n  x: y\n", &List{
			Keys:     []RootKey{{"apiVersion", 0, 36}, {"kind", 36, 55}, {"items", 55, 83}, {"functionConfig", 83, 106}},
			KeyLines: []int{1, 2, 3, 7}, Before: []bool{false, false, false, false},
			Entries: []Entry{{Start: 62, End: 69, Above: 62, Line: 4}, {Start: 69, End: 83, Above: 69, Line: 5}},
			NoTabs:  true,
		}},
		{"a tab in a value (a backslash and t in the first)", head + "items:\n- a: \"\\t\"\n- b:\tc\n", &List{
			Keys:     []RootKey{{"apiVersion", 0, 36}, {"kind", 36, 55}, {"items", 55, 79}},
			KeyLines: []int{1, 2, 3}, Before: []bool{false, false, false},
			Entries: []Entry{{Start: 62, End: 72, Above: 62, Line: 4}, {Start: 72, End: 79, Above: 72, Line: 5}},
		}},
		{"indented dashes, comments, no line break at the end", head + "items: # lead\n  - a: 1\n  # above b\n  - b: 2\n# after\nresults: []", &List{
			Keys:     []RootKey{{"apiVersion", 0, 36}, {"kind", 36, 55}, {"items", 55, 107}, {"results", 107, 118}},
			KeyLines: []int{1, 2, 3, 8}, Before: []bool{false, false, false, false},
			Entries: []Entry{{Start: 69, End: 90, Above: 69, Line: 4}, {Start: 90, End: 107, Above: 78, NAbove: 1, Line: 6}},
			SeqCol:  2, Lead: true, NoTabs: true,
		}},
		{"a comment before a key, and after the last", "# top\n" + head + "items:\n- a\n#end\n", &List{
			Keys:     []RootKey{{"apiVersion", 6, 42}, {"kind", 42, 61}, {"items", 61, 77}},
			KeyLines: []int{2, 3, 4}, Before: []bool{true, false, false},
			Entries: []Entry{{Start: 68, End: 77, Above: 68, Line: 5}},
			NoTabs:  true,
		}},
		{"no items", head + "items: []\n", nil},
		{"flow style", `{"apiVersion": "config.kubernetes.io/v1", "items": [{}]}`, nil},
		{"a tab at the root", head + "items:\n\t- a\n", nil},
		{"a document marker", "---\n" + head + "items:\n- a\n", nil},
		{"a line outside the items at their column", head + "items:\n  - a\n b: c\n", nil},
		{"a control character", head + "items:\n- a\x01\n", nil},
		{"an item line at column 0 after a key", head + "data:\n- a\nitems:\n- b\n", &List{
			Keys:     []RootKey{{"apiVersion", 0, 36}, {"kind", 36, 55}, {"data", 55, 65}, {"items", 65, 76}},
			KeyLines: []int{1, 2, 3, 5}, Before: []bool{false, false, false, false},
			Entries: []Entry{{Start: 72, End: 76, Above: 72, Line: 6}},
			NoTabs:  true,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Split([]byte(tc.in))
			if (tc.want != nil) != ok {
				t.Fatalf("Split sure = %v, want %v", ok, tc.want != nil)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreUnexported(List{})); diff != "" {
				t.Errorf("Split (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrintable: every byte, at every place in a word, next to every other
// kind of byte, is taken as printable ASCII (or a line break) or not as one
// byte at a time would.
func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, fill := range []byte{'a', ' ', '~', '\n', '\t', 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff, 0, 1, 0x0b, 0x09} {
		for b := range 256 {
			for at := range 8 {
				word := bytes.Repeat([]byte{fill}, 8)
				word[at] = byte(b)
				want := true
				for _, c := range word {
					want = want && (c >= 0x20 && c < 0x7f || c == '\n')
				}
				if got := printable(binary.LittleEndian.Uint64(word)); got != want {
					t.Fatalf("printable(%q) = %v, want %v", word, got, want)
				}
			}
		}
	}
}

// plainTextByByte is plainText one byte at a time, as it was.
func plainTextByByte(in []byte) bool {
	for i := 0; i < len(in); {
		c := in[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		if c == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i += 2
			continue
		}
		if c < 0x80 {
			return false
		}
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && size <= 1 || r <= 0x9f || r == 0x2028 || r == 0x2029 ||
			r == 0xfffe || r == 0xffff || r == 0xfeff && i != 0 {
			return false
		}
		i += size
	}
	return true
}

// FuzzPlainText holds plainText, eight bytes at a time, to plainTextByByte.
func FuzzPlainText(f *testing.F) {
	for _, s := range []string{"apiVersion: v1\nkind: ResourceList\n", "a\r\nb\rc", "\xef\xbb\xbfa: b", "ä: \u2028", "12345678\x7f", "1234567\t8\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := plainText(in), plainTextByByte(in); got != want {
			t.Fatalf("plainText(%q) = %v, one byte at a time %v", in, got, want)
		}
	})
}
