package kptpkg

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DotGit returns why git refuses the path segment seg as a name of its own
// folder .git, or "" when git takes it. The rule is git's verify_path (its
// read-cache.c, with path.c's is_ntfs_dotgit and utf8.c's is_hfs_dotgit)
// with core.protectNTFS and core.protectHFS on, as git checks a path it
// checks out, for one segment (the "", "." and ".." segments git also
// refuses are CheckPath's own):
//
//   - ".git" in any case;
//   - on NTFS, ".git" or its short name "git~1" (any case) followed by
//     dots and spaces only (which NTFS drops), or by ":" (a stream of it,
//     ".git::$INDEX_ALLOCATION"), or by a backslash (a folder separator
//     there; git also checks the name after each backslash);
//   - on HFS+, ".git" in any case with any of the code points HFS+ ignores
//     (U+200C–U+200F, U+202A–U+202E, U+206A–U+206F, U+FEFF) anywhere in
//     it, and ".git" followed by bytes that are not UTF-8 (git's check reads
//     them as the name's end).
//
// Git refuses ".gitmodules" and its NTFS and HFS+ names only as symbolic
// links, which kptkit never reads nor writes, so they are not here. The
// common segment (no '.', 'g', 'G' or the first byte of an ignored code
// point first, no backslash) is decided without allocating.
func DotGit(seg string) string {
	if seg == "" {
		return ""
	}
	switch seg[0] {
	case '.', 'g', 'G', 0xe2, 0xef:
	default:
		if strings.IndexByte(seg, '\\') < 0 {
			return ""
		}
	}
	if len(seg) == 4 && seg[0] == '.' && hasPrefixFold(seg[1:], "git") {
		return fmt.Sprintf("%q is git's own folder", seg)
	}
	for s := seg; ; {
		if why := ntfsDotGit(seg, s); why != "" {
			return why
		}
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			break
		}
		s = s[i+1:]
	}
	return hfsDotGit(seg)
}

// ntfsDotGit returns why NTFS reads s, the rest of the segment seg from
// its start or from a backslash in it, as .git (git's is_ntfs_dotgit), or
// "".
func ntfsDotGit(seg, s string) string {
	name := ".git"
	switch {
	case len(s) >= 4 && s[0] == '.' && hasPrefixFold(s[1:], "git"):
		s = s[4:]
	case len(s) >= 5 && hasPrefixFold(s, "git~1"):
		name, s = "git~1", s[5:]
	default:
		return ""
	}
	s = strings.TrimLeft(s, ". ")
	short := ""
	if name == "git~1" {
		short = " by its short name git~1"
	}
	switch {
	case s == "":
		return fmt.Sprintf("%q is .git on NTFS%s, which drops trailing dots and spaces", seg, short)
	case s[0] == ':':
		return fmt.Sprintf("%q is .git on NTFS%s (a stream of it)", seg, short)
	case s[0] == '\\':
		return fmt.Sprintf("%q is .git on NTFS%s, where a backslash separates folders", seg, short)
	}
	return ""
}

// hfsDotGit returns why HFS+ reads seg as .git (git's is_hfs_dotgit), or
// "": ".git" in any case once the code points HFS+ ignores are dropped,
// ending the segment or followed by bytes that are not UTF-8.
func hfsDotGit(seg string) string {
	var ignored rune
	i := 0
	for _, want := range ".git" {
		r, n := nextHFS(seg[i:], &ignored)
		if r != want && (want == '.' || r != want-'a'+'A') {
			return ""
		}
		i += n
	}
	if r, _ := nextHFS(seg[i:], &ignored); r != notUTF8 && r != -1 {
		return ""
	}
	if ignored == 0 {
		return fmt.Sprintf("%q is .git on HFS+ (git reads the bytes after .git, which are not UTF-8, as its end)", seg)
	}
	return fmt.Sprintf("%q is .git on HFS+, which ignores U+%04X", seg, ignored)
}

// notUTF8 is what nextHFS returns for bytes that are not UTF-8.
const notUTF8 = -2

// nextHFS returns the first code point of s that HFS+ does not ignore and
// the bytes up to its end, recording the first ignored one: -1 at the end
// of s, notUTF8 for bytes that are not UTF-8 as git reads it (which also
// refuses U+FFFE and U+FFFF).
func nextHFS(s string, ignored *rune) (rune, int) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r == 0xfffe, r == 0xffff:
			return notUTF8, i + n
		case hfsIgnored(r):
			if *ignored == 0 {
				*ignored = r
			}
			i += n
			continue
		}
		return r, i + n
	}
	return -1, len(s)
}

// hfsIgnored reports whether HFS+ drops the code point from names.
func hfsIgnored(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ASCII letters compared in any case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}
