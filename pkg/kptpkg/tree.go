package kptpkg

import (
	"bytes"
	"path"
	"slices"
	"strings"

	gitignore "github.com/monochromegane/go-gitignore"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
)

// IgnoreFile is the file in a package's root folder that names, in
// .gitignore's syntax, the paths kpt does not read as the package's
// resources.
const IgnoreFile = ".krmignore"

// Packages returns the folders of the tree that hold a Kptfile ("" for the
// root), parents before their subpackages, in lexical order.
func (f Files) Packages() []string {
	var out []string
	for p := range f {
		if path.Base(p) == kptfile.FileName {
			out = append(out, dirOf(p))
		}
	}
	slices.SortFunc(out, ComparePaths)
	return out
}

// ComparePaths orders slash paths segment by segment, so that a folder comes
// right before what lies below it ("a", "a/b", "a-b").
func ComparePaths(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// Subpackages returns the packages directly below dir (relative to the
// tree's root): those whose nearest enclosing package is dir.
func (f Files) Subpackages(dir string) []string {
	pkgs := f.Packages()
	var out []string
	for _, p := range pkgs {
		if p != dir && owner(pkgs, p, true) == dir {
			out = append(out, p)
		}
	}
	return out
}

// PackageOf returns the package a file belongs to: the nearest folder above
// it that holds a Kptfile ("" for the root, also when none does).
func (f Files) PackageOf(p string) string { return owner(f.Packages(), p, false) }

// owner returns the innermost package in pkgs that holds p (for a package
// folder itself, with strict, the one above it).
func owner(pkgs []string, p string, strict bool) string {
	best := ""
	for _, d := range pkgs {
		if d == "" || (strict && d == p) {
			continue
		}
		if strings.HasPrefix(p, d+"/") || (!strict && p == d) {
			if len(d) > len(best) {
				best = d
			}
		}
	}
	return best
}

func dirOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// ignorer answers whether kpt leaves a file out of its package's resources:
// each package's .krmignore covers the files of that package (not those of
// its subpackages, which have their own), with .gitignore's rules.
type ignorer struct {
	pkgs     []string
	matchers map[string]gitignore.IgnoreMatcher
}

func (f Files) ignorer() *ignorer {
	ig := &ignorer{pkgs: f.Packages(), matchers: map[string]gitignore.IgnoreMatcher{}}
	if !slices.Contains(ig.pkgs, "") {
		ig.pkgs = append([]string{""}, ig.pkgs...)
	}
	for _, d := range ig.pkgs {
		if b, ok := f[path.Join(d, IgnoreFile)]; ok {
			ig.matchers[d] = gitignore.NewGitIgnoreFromReader("/"+d, bytes.NewReader(b))
		}
	}
	return ig
}

// Ignored reports whether kpt leaves the file at p out of its package's
// resources: its package's .krmignore names it or a folder above it.
func (f Files) Ignored(p string) bool { return f.ignorer().ignored(p) }

// ignored reports whether the file at p is left out: its package's
// .krmignore matches it or a folder above it within that package.
func (ig *ignorer) ignored(p string) bool {
	pkg := owner(ig.pkgs, p, false)
	m := ig.matchers[pkg]
	if m == nil {
		return false
	}
	for d := dirOf(p); d != pkg && d != ""; d = dirOf(d) {
		if m.Match("/"+d, true) {
			return true
		}
	}
	return m.Match("/"+p, false)
}
