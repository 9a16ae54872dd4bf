// The shape of the project, enforced: pkg/ is pure logic that never imports
// functions/ or cmd/, never touches the process (os, os/exec, syscall) and
// never reads the clock; a function never imports another function; the
// catalog functions linked into kptkit (internal/builtinfn) reach only the
// kptkit binary, never pkg/ or the function binaries.
package kptkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/kptkit/kptkit/"

// impure lists what pkg/ must not import; the test helpers may.
var impure = []string{"os", "os/exec", "syscall", "os/signal"}

// testHelpers are pkg/ packages made for tests, allowed to touch files.
var testHelpers = map[string]bool{"pkg/krmtest": true, "pkg/krmtest/corpus": true}

func TestDependencies(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		checkFile(t, filepath.ToSlash(path), f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// catalogCode is what only internal/builtinfn may import: the kpt function
// catalog's Go code and the SDK it is written for.
var catalogCode = []string{"github.com/GoogleContainerTools/kpt-functions-catalog/", "github.com/GoogleContainerTools/kpt-functions-sdk/"}

func checkFile(t *testing.T, path string, f *ast.File) {
	dir := filepath.ToSlash(filepath.Dir(path))
	isTest := strings.HasSuffix(path, "_test.go")
	inBuiltin := dir == "internal/builtinfn" || strings.HasPrefix(dir, "internal/builtinfn/")
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == module+"internal/builtinfn" && !inBuiltin && dir != "cmd/kptkit" {
			t.Errorf("%s imports %s: only cmd/kptkit links the catalog functions", path, p)
		}
		for _, c := range catalogCode {
			if strings.HasPrefix(p, c) && !inBuiltin {
				t.Errorf("%s imports %s: the catalog's code is linked through internal/builtinfn only", path, p)
			}
		}
		switch {
		case strings.HasPrefix(dir, "pkg/"):
			if strings.HasPrefix(p, module+"functions") || strings.HasPrefix(p, module+"cmd") {
				t.Errorf("%s imports %s: pkg/ must not depend on functions/ or cmd/", path, p)
			}
			if !isTest && !testHelpers[dir] && slices.Contains(impure, p) {
				t.Errorf("%s imports %s: pkg/ must stay pure (take files, clock and environment as values)", path, p)
			}
			if !isTest && strings.HasPrefix(p, module+"internal") {
				t.Errorf("%s imports %s: pkg/ must not depend on internal/ (the disk, git and processes live there)", path, p)
			}
		case strings.HasPrefix(dir, "functions/"):
			own := strings.SplitN(dir, "/", 3)[1]
			if rest, ok := strings.CutPrefix(p, module+"functions/"); ok && strings.SplitN(rest, "/", 2)[0] != own {
				t.Errorf("%s imports %s: a function must not import another function", path, p)
			}
		}
	}
}

// TestNoClockInPkg refuses time.Now in pkg/: the clock comes in as a value.
func TestNoClockInPkg(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	err := filepath.WalkDir("pkg", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if testHelpers[filepath.ToSlash(filepath.Dir(path))] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && sel.Sel.Name == "Now" {
					t.Errorf("%s: time.Now in pkg/: take the clock from krmfn.Env", fset.Position(sel.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFunctionBinariesStaySmall: no function binary links the catalog
// functions (only kptkit does).
func TestFunctionBinariesStaySmall(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "./functions/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == module+"internal/builtinfn" || strings.HasPrefix(dep, catalogCode[0]) || strings.HasPrefix(dep, catalogCode[1]) {
			t.Errorf("a function binary depends on %s: only kptkit links the catalog functions", dep)
		}
	}
}
