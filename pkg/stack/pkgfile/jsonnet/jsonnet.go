// Package jsonnet evaluates pkger's Jsonnet package files with go-jsonnet:
// a program's name and text go in (its imports read from a file system,
// relative to the importing file), the JSON it evaluates to comes out.
// go-jsonnet can neither be stopped nor bounded in memory, so kptkit runs
// VM in a child process within time and memory limits (cmd/kptkit); the
// package stays apart from pkgfile, so that what reads package files
// without evaluating them (apply-stack) does not link go-jsonnet.
package jsonnet

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	gojsonnet "github.com/google/go-jsonnet"
)

// VM evaluates Jsonnet programs, their imports read from FS; nothing else
// of the world is visible (no environment, no std.extVar values).
type VM struct{ FS fs.FS }

// Evaluate implements pkgfile.Evaluator.
func (v VM) Evaluate(name string, src []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("jsonnet: %v", r)
		}
	}()
	vm := gojsonnet.MakeVM()
	vm.Importer(&fsImporter{fsys: v.FS, cache: map[string]gojsonnet.Contents{}})
	vm.SetTraceOut(io.Discard)
	json, err := vm.EvaluateAnonymousSnippet(path.Clean(name), string(src))
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimSpace(err.Error()))
	}
	return []byte(json), nil
}

// fsImporter reads Jsonnet imports from a file system.
type fsImporter struct {
	fsys  fs.FS
	cache map[string]gojsonnet.Contents
}

// Import reads importedPath relative to the folder of importedFrom.
func (i *fsImporter) Import(importedFrom, importedPath string) (gojsonnet.Contents, string, error) {
	if i.fsys == nil {
		return gojsonnet.Contents{}, "", fmt.Errorf("cannot import %q: no files to import from", importedPath)
	}
	if path.IsAbs(importedPath) {
		return gojsonnet.Contents{}, "", fmt.Errorf("cannot import %q: imports must be relative to the importing file", importedPath)
	}
	at := path.Join(path.Dir(importedFrom), importedPath)
	if !fs.ValidPath(at) {
		return gojsonnet.Contents{}, "", fmt.Errorf("cannot import %q: it is outside the package", importedPath)
	}
	if c, ok := i.cache[at]; ok {
		return c, at, nil
	}
	data, err := fs.ReadFile(i.fsys, at)
	if err != nil {
		return gojsonnet.Contents{}, "", fmt.Errorf("cannot import %q: %w", importedPath, err)
	}
	c := gojsonnet.MakeContentsRaw(data)
	i.cache[at] = c
	return c, at, nil
}
