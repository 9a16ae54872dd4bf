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
// right before what lies below it ("a", "a/b", "a-b"): as bytes, with "/"
// before every other byte (the end of a path before "/"), so that no path
// is split to be compared.
func ComparePaths(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	switch {
	case i == n:
		return len(a) - len(b)
	case a[i] == '/':
		return -1
	case b[i] == '/':
		return 1
	case a[i] < b[i]:
		return -1
	}
	return 1
}

// Subpackages returns the packages directly below dir (relative to the
// tree's root): those whose nearest enclosing package is dir. Each call
// looks at every file: ask a Layout many questions.
func (f Files) Subpackages(dir string) []string { return f.Layout().Subpackages(dir) }

// PackageOf returns the package a file belongs to: the nearest folder above
// it that holds a Kptfile ("" for the root, also when none does).
func (f Files) PackageOf(p string) string {
	for d := p; d != ""; d = dirOf(d) {
		if _, ok := f[path.Join(d, kptfile.FileName)]; ok {
			return d
		}
	}
	return ""
}

// Ignored reports whether kpt leaves the file at p out of its package's
// resources: its package's .krmignore names it or a folder above it.
func (f Files) Ignored(p string) bool { return f.ignorer().ignored(p) }

// Layout is a tree's files as kpt sees them, worked out once for many
// questions: the files in kpt's order, the packages and which package each
// folder belongs to, the files .krmignore leaves out. Each folder and file
// is looked at a bounded number of times, so a deep or wide tree costs in
// proportion to its folders and files. A Layout does not change: it is
// safe for concurrent use.
type Layout struct {
	files   Files
	paths   []string            // every file, in kpt's order
	pkgs    []string            // as Packages
	subs    map[string][]string // a package → the packages directly below it
	own     map[string][]string // a package → its resource files, in kpt's order
	folders map[string]string   // a folder → the package it belongs to
	ignored map[string]bool     // the files .krmignore leaves out
}

// Layout works the tree's layout out.
func (f Files) Layout() *Layout {
	ig := f.ignorer()
	l := &Layout{files: f, paths: f.Paths(), pkgs: ig.pkgs, subs: map[string][]string{},
		own: map[string][]string{}, folders: ig.folders, ignored: map[string]bool{}}
	if _, ok := f[kptfile.FileName]; !ok {
		l.pkgs = l.pkgs[1:]
	}
	for _, p := range l.paths {
		switch {
		case ig.ignored(p):
			l.ignored[p] = true
		case IsResource(p):
			pkg := ig.packageOf(dirOf(p))
			l.own[pkg] = append(l.own[pkg], p)
		}
	}
	for _, d := range l.pkgs {
		if d != "" {
			above := ig.packageOf(dirOf(d))
			l.subs[above] = append(l.subs[above], d)
		}
	}
	return l
}

// Packages returns the folders of the tree that hold a Kptfile, as
// Files.Packages.
func (l *Layout) Packages() []string { return slices.Clone(l.pkgs) }

// Subpackages returns the packages directly below dir, as
// Files.Subpackages.
func (l *Layout) Subpackages(dir string) []string { return slices.Clone(l.subs[dir]) }

// PackageOf returns the package the file or folder at p belongs to, as
// Files.PackageOf.
func (l *Layout) PackageOf(p string) string {
	for d := p; ; d = dirOf(d) {
		if pkg, ok := l.folders[d]; ok {
			return pkg
		}
		if d == "" {
			return ""
		}
	}
}

// Ignored reports whether the file at p is left out of its package's
// resources, as Files.Ignored.
func (l *Layout) Ignored(p string) bool {
	if _, ok := l.files[p]; ok {
		return l.ignored[p]
	}
	return l.files.Ignored(p)
}

// Sub returns the files below dir with paths relative to it, as
// Files.Sub, looking at those files only.
func (l *Layout) Sub(dir string) Files {
	if dir == "" || dir == "." {
		return l.files.Clone()
	}
	below := l.below(dir)
	out := make(Files, len(below))
	for _, p := range below {
		out[p[len(dir)+1:]] = l.files[p]
	}
	return out
}

// below returns the paths of the tree's files below dir (all for ""), in
// kpt's order: they are next to each other in it.
func (l *Layout) below(dir string) []string {
	if dir == "" {
		return l.paths
	}
	prefix := dir + "/"
	lo, _ := slices.BinarySearchFunc(l.paths, prefix, ComparePaths)
	hi := lo
	for hi < len(l.paths) && strings.HasPrefix(l.paths[hi], prefix) {
		hi++
	}
	return l.paths[lo:hi]
}

func dirOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// ignorer answers whether kpt leaves a file out of its package's resources:
// each package's .krmignore covers the files of that package (not those of
// its subpackages, which have their own), with .gitignore's rules. It
// remembers each folder's package and whether .krmignore leaves the folder
// out, so that a file's question costs one look-up and a match or two,
// however deep it lies.
type ignorer struct {
	pkgs     []string
	matchers map[string]gitignore.IgnoreMatcher
	folders  map[string]string // a folder → its package
	out      map[string]bool   // a folder → whether its package's .krmignore leaves it out
}

func (f Files) ignorer() *ignorer {
	ig := &ignorer{pkgs: f.Packages(), matchers: map[string]gitignore.IgnoreMatcher{},
		folders: map[string]string{"": ""}, out: map[string]bool{}}
	if !slices.Contains(ig.pkgs, "") {
		ig.pkgs = append([]string{""}, ig.pkgs...)
	}
	for _, d := range ig.pkgs {
		ig.folders[d] = d
		if b, ok := f[path.Join(d, IgnoreFile)]; ok {
			ig.matchers[d] = gitignore.NewGitIgnoreFromReader("/"+d, bytes.NewReader(matchable(b)))
		}
	}
	return ig
}

// matchable leaves out of a .krmignore the lines that name no path ("!",
// "/", "!/"), on which the matcher kpt and kptkit use panics; git matches
// nothing with them. A line is read as the matcher reads it: a carriage
// return before its end dropped, then spaces trimmed.
func matchable(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	kept := lines[:0]
	for _, l := range lines {
		t := bytes.Trim(bytes.TrimSuffix(l, []byte("\r")), " ")
		p := bytes.TrimPrefix(bytes.TrimPrefix(t, []byte("!")), []byte("/"))
		if len(t) == 0 || t[0] == '#' || len(p) > 0 {
			kept = append(kept, l)
		}
	}
	return bytes.Join(kept, []byte("\n"))
}

// packageOf returns the package the folder dir belongs to, remembering it
// for dir and the folders between it and its package.
func (ig *ignorer) packageOf(dir string) string {
	var unknown []string
	d := dir
	for {
		if pkg, ok := ig.folders[d]; ok {
			for _, u := range unknown {
				ig.folders[u] = pkg
			}
			return pkg
		}
		unknown = append(unknown, d)
		d = dirOf(d)
	}
}

// ignored reports whether the file at p is left out: its package's
// .krmignore matches it or a folder above it within that package.
func (ig *ignorer) ignored(p string) bool {
	dir := dirOf(p)
	pkg := ig.packageOf(dir)
	m := ig.matchers[pkg]
	if m == nil {
		return false
	}
	return ig.folderOut(dir, pkg, m) || m.Match("/"+p, false)
}

// folderOut reports whether the folder dir of the package pkg is left out
// (m matches it or a folder between it and pkg), each folder matched once.
func (ig *ignorer) folderOut(dir, pkg string, m gitignore.IgnoreMatcher) bool {
	var unknown []string
	out := false
	for d := dir; d != pkg && d != ""; d = dirOf(d) {
		if v, ok := ig.out[d]; ok {
			out = v
			break
		}
		unknown = append(unknown, d)
	}
	for _, d := range slices.Backward(unknown) {
		out = out || m.Match("/"+d, true)
		ig.out[d] = out
	}
	return out
}
