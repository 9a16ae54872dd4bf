package pkgfile

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/google/go-jsonnet"
)

// evaluate runs a Jsonnet program and returns the JSON it evaluates to.
// Imports are read from fsys, relative to the importing file; nothing else
// of the world is visible (no environment, no std.extVar values).
func evaluate(fsys fs.FS, name string, src []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("jsonnet: %v", r)
		}
	}()
	vm := jsonnet.MakeVM()
	vm.Importer(&fsImporter{fsys: fsys, cache: map[string]jsonnet.Contents{}})
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
	cache map[string]jsonnet.Contents
}

// Import reads importedPath relative to the folder of importedFrom.
func (i *fsImporter) Import(importedFrom, importedPath string) (jsonnet.Contents, string, error) {
	if i.fsys == nil {
		return jsonnet.Contents{}, "", fmt.Errorf("cannot import %q: no files to import from", importedPath)
	}
	if path.IsAbs(importedPath) {
		return jsonnet.Contents{}, "", fmt.Errorf("cannot import %q: imports must be relative to the importing file", importedPath)
	}
	at := path.Join(path.Dir(importedFrom), importedPath)
	if !fs.ValidPath(at) {
		return jsonnet.Contents{}, "", fmt.Errorf("cannot import %q: it is outside the package", importedPath)
	}
	if c, ok := i.cache[at]; ok {
		return c, at, nil
	}
	data, err := fs.ReadFile(i.fsys, at)
	if err != nil {
		return jsonnet.Contents{}, "", fmt.Errorf("cannot import %q: %w", importedPath, err)
	}
	c := jsonnet.MakeContentsRaw(data)
	i.cache[at] = c
	return c, at, nil
}
