package main

import (
	"io/fs"
	"path"
	"strings"
)

// packageFiles lists the files of a package that keep says to keep, in
// lexical order, as kpt reads a package: hidden folders and the paths its
// .krmignore names are left out.
func packageFiles(fsys fs.FS, keep func(string) bool) ([]string, error) {
	ignore := krmIgnore(fsys)
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == ".":
			return nil
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") || ignore(p+"/")):
			return fs.SkipDir
		case d.IsDir() || ignore(p):
			return nil
		}
		if keep(p) {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// krmIgnore reads the package's .krmignore: one glob a line, matched
// against the path and the file name; a trailing / matches folders only.
func krmIgnore(fsys fs.FS) func(string) bool {
	data, _ := fs.ReadFile(fsys, ".krmignore")
	var patterns []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, strings.TrimPrefix(line, "/"))
		}
	}
	return func(p string) bool {
		dir := strings.HasSuffix(p, "/")
		p = strings.TrimSuffix(p, "/")
		for _, pat := range patterns {
			if strings.HasSuffix(pat, "/") && !dir {
				continue
			}
			pat = strings.TrimSuffix(pat, "/")
			if ok, _ := path.Match(pat, p); ok {
				return true
			}
			if ok, _ := path.Match(pat, path.Base(p)); ok && !strings.Contains(pat, "/") {
				return true
			}
		}
		return false
	}
}
