package kptpkg_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

func TestCheckSegments(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]*kptpkg.Segment{
		"a/b.yaml":     nil,
		"":             {Name: ""},
		"a//b":         {Name: ""},
		"a/":           {Name: ""},
		"./a":          {Name: "."},
		"a/../b":       {Name: ".."},
		"a/.git/b":     {Name: ".git", DotGit: `".git" is git's own folder`},
		".git./a/../b": {Name: ".git.", DotGit: `".git." is .git on NTFS, which drops trailing dots and spaces`},
		"a/../.git":    {Name: ".."}, // the first bad segment
	} {
		if diff := cmp.Diff(want, kptpkg.CheckSegments(p)); diff != "" {
			t.Errorf("CheckSegments(%q) (-want +got):\n%s", p, diff)
		}
	}
}
