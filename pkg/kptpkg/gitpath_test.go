package kptpkg_test

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// gitPathCases are paths git refuses and paths near them it takes, with
// what CheckPath says of each ("" for accepted). Each rule of DotGit has
// a case here.
var gitPathCases = map[string]string{
	// .git in any case, anywhere.
	".git":                `file ".git": invalid path: ".git" is git's own folder`,
	".git/config":         `file ".git/config": invalid path: ".git" is git's own folder`,
	"app/sub/.git/config": `file "app/sub/.git/config": invalid path: ".git" is git's own folder`,
	"app/.GIT/x":          `file "app/.GIT/x": invalid path: ".GIT" is git's own folder`,
	"app/.gIt":            `file "app/.gIt": invalid path: ".gIt" is git's own folder`,
	// NTFS drops trailing dots and spaces.
	"app/.git./x":   `file "app/.git./x": invalid path: ".git." is .git on NTFS, which drops trailing dots and spaces`,
	"app/.git /x":   `file "app/.git /x": invalid path: ".git " is .git on NTFS, which drops trailing dots and spaces`,
	"app/.GIT. . .": `file "app/.GIT. . .": invalid path: ".GIT. . ." is .git on NTFS, which drops trailing dots and spaces`,
	// NTFS's 8.3 short name of .git.
	"app/sub/git~1/x": `file "app/sub/git~1/x": invalid path: "git~1" is .git on NTFS by its short name git~1, which drops trailing dots and spaces`,
	"GIT~1":           `file "GIT~1": invalid path: "GIT~1" is .git on NTFS by its short name git~1, which drops trailing dots and spaces`,
	"a/Git~1 ./b":     `file "a/Git~1 ./b": invalid path: "Git~1 ." is .git on NTFS by its short name git~1, which drops trailing dots and spaces`,
	// NTFS streams of .git.
	"app/.git::$INDEX_ALLOCATION/config": `file "app/.git::$INDEX_ALLOCATION/config": invalid path: ".git::$INDEX_ALLOCATION" is .git on NTFS (a stream of it)`,
	"app/.git:x":                         `file "app/.git:x": invalid path: ".git:x" is .git on NTFS (a stream of it)`,
	"app/.git. :x":                       `file "app/.git. :x": invalid path: ".git. :x" is .git on NTFS (a stream of it)`,
	"app/git~1::$DATA":                   `file "app/git~1::$DATA": invalid path: "git~1::$DATA" is .git on NTFS by its short name git~1 (a stream of it)`,
	// HFS+ ignores some code points.
	"app/.g\u200cit/x":                       `file "app/.g\u200cit/x": invalid path: ".g\u200cit" is .git on HFS+, which ignores U+200C`,
	"\u200d.git":                             `file "\u200d.git": invalid path: "\u200d.git" is .git on HFS+, which ignores U+200D`,
	".GIT\u200e":                             `file ".GIT\u200e": invalid path: ".GIT\u200e" is .git on HFS+, which ignores U+200E`,
	"a/.\u200fg\u202ai\u202et\u206a\u206f/b": `file "a/.\u200fg\u202ai\u202et\u206a\u206f/b": invalid path: ".\u200fg\u202ai\u202et\u206a\u206f" is .git on HFS+, which ignores U+200F`,
	"a/.gi\ufefft":                           `file "a/.gi\ufefft": invalid path: ".gi\ufefft" is .git on HFS+, which ignores U+FEFF`,
	"a/.git\xff/b":                           `file "a/.git\xff/b": invalid path: ".git\xff" is .git on HFS+ (git reads the bytes after .git, which are not UTF-8, as its end)`,
	"a/.git\xe2\x80":                         `file "a/.git\xe2\x80": invalid path: ".git\xe2\x80" is .git on HFS+ (git reads the bytes after .git, which are not UTF-8, as its end)`,
	"a/.git\uffff":                           `file "a/.git\uffff": invalid path: ".git\uffff" is .git on HFS+ (git reads the bytes after .git, which are not UTF-8, as its end)`,
	// kptkit's own refusals, unchanged.
	`app\.git`:    `file "app\\.git": a backslash or NUL is not allowed in a path`,
	"app/../.git": `file "app/../.git" must stay inside its folder: no ".." segment`,
	"c:/.git":     `file "c:/.git" is absolute: it must be relative`,
	// Near misses git takes.
	".gitignore":                    "",
	".gitattributes":                "",
	".gitmodules":                   "",
	"app/.github/workflows/ci.yaml": "",
	"app/.gitkeep":                  "",
	"app/.git.yaml":                 "",
	"app/.git x":                    "",
	"app/.git.~1":                   "",
	"app/git":                       "",
	"app/git~1x":                    "",
	"app/git~2":                     "",
	"app/git~11":                    "",
	"app/gi~1":                      "",
	"app/x.git":                     "",
	"app/.g\u200bit":                "",
	"app/.g\u200cit\u200cx":         "",
	"app/.git\ufffd":                "",
	"app/.git\u200c:x":              "",
	"app/.g\xffit":                  "",
	"app/..git":                     "",
	"app/...":                       "",
	"app/ .git":                     "",
	"app/:.git":                     "",
	"app/\u0130.git":                "",
	"app/.g\u0130t":                 "",
	"system:aggregate-to-edit.yaml": "",
}

func TestCheckPathGit(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for p := range gitPathCases {
		got[p] = ""
		if err := kptpkg.CheckPath("file", p); err != nil {
			got[p] = err.Error()
		}
	}
	if diff := cmp.Diff(gitPathCases, got); diff != "" {
		t.Errorf("CheckPath (-want +got):\n%s", diff)
	}
}

// specNTFS is git's is_ntfs_dotgit read from its source: .git or git~1 in
// any ASCII case, then dots and spaces, then the end, a backslash or a
// colon.
var specNTFS = regexp.MustCompile(`^(\.[gG][iI][tT]|[gG][iI][tT]~1)[. ]*($|[\\:])`)

// specHFSIgnored are the code points git's is_hfs_dotgit skips (utf8.c,
// next_hfs_char), one by one.
var specHFSIgnored = []rune{
	0x200c, 0x200d, 0x200e, 0x200f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
	0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f,
	0xfeff,
}

// specHFS is git's is_hfs_dotgit for one segment, written apart from
// DotGit: the segment decoded as git decodes UTF-8 (stopping at the first
// bytes that are not, U+FFFE and U+FFFF included), the ignored code points
// dropped, is ".git" in any ASCII case, alone or before the bad bytes.
func specHFS(seg string) bool {
	var rs []rune
	for len(seg) > 0 {
		r, n := utf8.DecodeRuneInString(seg)
		if (r == utf8.RuneError && n == 1) || r == 0xfffe || r == 0xffff {
			break // the name ends here for git
		}
		seg = seg[n:]
		if !slices.Contains(specHFSIgnored, r) {
			rs = append(rs, r)
		}
	}
	if len(rs) != 4 {
		return false
	}
	lower := strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 32
		}
		return r
	}, string(rs))
	return lower == ".git"
}

// specGitRefuses is git's verify_path for a regular file on Linux with
// core.protectNTFS and core.protectHFS on, written from its source apart
// from CheckPath and DotGit.
func specGitRefuses(p string) bool {
	if p == "" {
		return true
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".", "..":
			return true
		}
		if len(seg) == 4 && strings.EqualFold(seg, ".git") {
			return true
		}
		parts := strings.Split(seg, `\`)
		for i := range parts {
			if specNTFS.MatchString(strings.Join(parts[i:], `\`)) {
				return true
			}
		}
		if specHFS(seg) {
			return true
		}
	}
	return false
}

// specKptkitRefuses is what CheckPath refuses beyond git: backslashes and
// NUL, absolute paths and a drive letter's colon.
func specKptkitRefuses(p string) bool {
	return strings.ContainsAny(p, "\\\x00") || path.IsAbs(p) || (len(p) > 1 && p[1] == ':')
}

func TestSpecAgreesWithTable(t *testing.T) {
	t.Parallel()
	for p, want := range gitPathCases {
		if got := specGitRefuses(p) || specKptkitRefuses(p); got != (want != "") {
			t.Errorf("the spec refuses %q: %v, the table says %q", p, got, want)
		}
	}
}

func FuzzCheckPathGit(f *testing.F) {
	for p := range gitPathCases {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := kptpkg.CheckPath("file", p)
		if want := specGitRefuses(p) || specKptkitRefuses(p); (err != nil) != want {
			t.Errorf("CheckPath(%q) = %v, want refused: %v", p, err, want)
		}
		for seg := range strings.SplitSeq(p, "/") {
			if why := kptpkg.DotGit(seg); why != "" && err == nil {
				t.Errorf("DotGit(%q) = %q but CheckPath(%q) = %v", seg, why, p, err)
			}
		}
	})
}

// gitCandidates are the table's paths and every segment of near misses
// under a folder and above a file.
func gitCandidates() []string {
	segs := []string{
		".git", ".GIT", ".Git", "git~1", "GIT~1", "git~2", "git~1x", ".git.", ".git ", ".git. . ",
		".git::$INDEX_ALLOCATION", ".git:x", "git~1:x", ".gitx", ".git.x", ".git x", "x.git", "git",
		".g\u200cit", "\u200c.git", ".git\u200c", ".git\ufeff", ".g\u200bit", ".git\xff", ".git\xe2\x80",
		".g\xffit", ".git\ufffe", ".git\uffff", ".git\ufffd", "a\\.git", ".git\\x", "a\\git~1", "a\\.git.",
		".gitmodules", ".GITMODULES", "gitmod~1", ".git\u200c:x", ".", "..", "...", "a..", "a ", "a.",
		"\u200c", ".g\u206fi\u202at\u200f", ".gi\ufefft .",
	}
	var out []string
	for p := range gitPathCases {
		out = append(out, p)
	}
	for _, s := range segs {
		out = append(out, s, "a/"+s, s+"/x", "a/"+s+"/x")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestSpecAgreesWithGit holds the spec to git itself: every candidate path
// is offered to `git update-index --index-info` with core.protectNTFS and
// core.protectHFS on, each below a folder of its own (so that no two are a
// file and a folder), and git refuses exactly those the spec refuses (git
// cannot hold a NUL). CheckPath refuses what git refuses, and beyond it
// only its own cases.
func TestSpecAgreesWithGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	git("", "init", "-q")
	git("", "config", "core.protectNTFS", "true")
	git("", "config", "core.protectHFS", "true")
	blob := strings.TrimSpace(git("x\n", "hash-object", "-w", "--stdin"))
	var in strings.Builder
	var paths []string
	for _, p := range gitCandidates() {
		if strings.ContainsRune(p, 0) {
			continue
		}
		in.WriteString(fmt.Sprintf("100644 %s\tc%d/%s\x00", blob, len(paths), p))
		paths = append(paths, p)
	}
	git(in.String(), "update-index", "-z", "--index-info")
	taken := map[string]bool{}
	for p := range strings.SplitSeq(git("", "ls-files", "-z"), "\x00") {
		if n, rest, ok := strings.Cut(p, "/"); ok {
			taken[n+"/"+rest] = true
		}
	}
	var byGit, bySpec []string
	for i, p := range paths {
		refused := !taken[fmt.Sprintf("c%d/%s", i, p)]
		if refused {
			byGit = append(byGit, p)
		}
		if specGitRefuses(p) {
			bySpec = append(bySpec, p)
		}
		switch err := kptpkg.CheckPath("file", p); {
		case err == nil && refused:
			t.Errorf("git refuses %q, CheckPath takes it", p)
		case err != nil && !refused && !specKptkitRefuses(p):
			t.Errorf("git takes %q, CheckPath refuses it: %v", p, err)
		}
	}
	if len(byGit) < 40 {
		t.Fatalf("git refused only %d paths: %q", len(byGit), byGit)
	}
	if diff := cmp.Diff(byGit, bySpec); diff != "" {
		t.Errorf("paths refused: git (-) and the spec (+):\n%s", diff)
	}
}
