package resourcelist_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/pipeline"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack"
)

// The equivalence tests run every golden case, every example and every
// package of the Nephio catalog through the lazy reading and through the
// whole parse, and compare outputs and results (and, with checkLazy, the
// headers, nodes and the output of edits).

// golden are the functions, by the package that holds their golden cases.
var golden = map[string]krmfn.Function{
	"pkgcontext": pkgcontext.Function,
	"pipeline":   pipeline.Function,
	"inject":     inject.Function,
	"fanout":     fanout.Function,
	"stack":      stack.Function,
	"deps":       deps.Function,
}

// touchAll edits every item (an annotation more) and reads the rest of
// the list: the writer's work on every item.
var touchAll = krmfn.Function{Name: "touch-all", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
	for i, it := range rl.Select(func(resourcelist.Header) bool { return true }) {
		switch {
		case i%4 == 3:
			rl.Delete(it)
		case it.Node().YNode().Kind == yaml.MappingNode:
			if err := fieldpath.SetString(it.Edit(), fieldpath.Parse(`metadata.annotations.example\.com/seen`), "true"); err != nil {
				return err
			}
		}
	}
	return nil
}}

// functionsFor are the functions every input of the examples and the
// corpus goes through.
func functionsFor() []krmfn.Function {
	fs := []krmfn.Function{krmfn.Identity, touchAll}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range golden {
			if !yield(k) {
				return
			}
		}
	}) {
		fs = append(fs, golden[name])
	}
	return fs
}

// processWith runs f over in as krmfn.Process does, with the given parse.
func processWith(f krmfn.Function, in []byte, env krmfn.Env, parse func([]byte) (*resourcelist.ResourceList, error)) (string, result.List) {
	rl, err := parse(in)
	if err != nil {
		rl = resourcelist.Empty()
		rl.AddResults(result.Errorf("%v", err))
	} else {
		krmfn.Apply(f, rl, env)
	}
	out, err := rl.Write()
	if err != nil {
		return "write: " + err.Error(), rl.Results()
	}
	return string(out), rl.Results()
}

// equivalent fails unless f gives the same output and results over in read
// lazily and whole. It reports whether the list was read lazily.
func equivalent(t *testing.T, name string, f krmfn.Function, in []byte, env krmfn.Env) bool {
	t.Helper()
	lo, lr := processWith(f, in, env, resourcelist.Parse)
	fo, fr := processWith(f, in, env, resourcelist.ParseFull)
	if diff := cmp.Diff(fo, lo); diff != "" {
		t.Errorf("%s, %s: output (-whole +lazy):\n%s", name, f.Name, diff)
	}
	if diff := cmp.Diff(fr, lr); diff != "" {
		t.Errorf("%s, %s: results (-whole +lazy):\n%s", name, f.Name, diff)
	}
	rl, err := resourcelist.Parse(in)
	return err == nil && rl.Lazy()
}

func TestEquivalenceGolden(t *testing.T) {
	t.Parallel()
	lazy, all := 0, 0
	for dir, f := range golden {
		cases, err := filepath.Glob(filepath.Join("..", dir, "testdata", "*", krmtest.Input))
		if err != nil || len(cases) == 0 {
			t.Fatalf("no golden cases for %s", dir)
		}
		for _, c := range cases {
			in, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			env := krmtest.ReadEnv(t, filepath.Dir(c))
			all++
			if equivalent(t, c, f, in, env) {
				lazy++
			}
			equivalent(t, c, touchAll, in, env)
			checkLazy(t, in)
		}
	}
	t.Logf("%d of %d golden inputs read lazily", lazy, all)
}

func TestEquivalenceExamples(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", ".expected"))
	if err != nil || len(dirs) == 0 {
		t.Fatal("no examples")
	}
	env := krmtest.Env(krmtest.Clock, nil)
	for _, d := range dirs {
		dir := filepath.Dir(d)
		files := readPackage(t, dir)
		delete(files, "kustomization.yaml") // kustomize's own, not a resource
		var cfg struct {
			FnConfig string   `yaml:"fnConfig"`
			Args     []string `yaml:"args"`
		}
		if b, err := os.ReadFile(filepath.Join(d, "config.yaml")); err == nil {
			if err := yaml.Unmarshal(b, &cfg); err != nil {
				t.Fatal(err)
			}
		}
		fnConfig := exampleConfig(t, files, cfg.FnConfig, cfg.Args)
		in, err := source(files, fnConfig)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		for _, f := range functionsFor() {
			equivalent(t, dir, f, in, env)
		}
		checkLazy(t, in)
	}
}

// exampleConfig returns an example's functionConfig: its file, or a
// ConfigMap of key=value arguments, as kpt fn eval makes it.
func exampleConfig(t *testing.T, files kptpkg.Files, file string, args []string) *yaml.RNode {
	t.Helper()
	switch {
	case file != "":
		n, err := yaml.Parse(string(files[file]))
		if err != nil {
			t.Fatal(err)
		}
		return n
	case len(args) > 0:
		n := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: {}\n")
		for _, a := range args {
			k, v, _ := strings.Cut(a, "=")
			if err := n.PipeE(yaml.SetField("data", yaml.NewMapRNode(nil)), yaml.Lookup("data"), yaml.SetField(k, yaml.NewStringRNode(v))); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	return nil
}

// TestEquivalenceCorpus runs every package of the Nephio catalog through
// every function, with no config, through the identity pass and through
// touchAll.
func TestEquivalenceCorpus(t *testing.T) {
	t.Parallel()
	env := krmtest.Env(krmtest.Clock, nil)
	lazy, all, scanned, items := 0, 0, 0, 0
	for _, dir := range corpus.Packages(t) {
		in, err := source(readPackage(t, dir), nil)
		if err != nil {
			continue // not a package kpt reads either
		}
		all++
		for _, f := range functionsFor() {
			if equivalent(t, dir, f, in, env) && f.Name == krmfn.Identity.Name {
				lazy++
			}
		}
		checkLazy(t, in)
		if rl, err := resourcelist.Parse(in); err == nil {
			n, of := rl.Scanned()
			scanned, items = scanned+n, items+of
		}
	}
	t.Logf("%d of %d corpus packages read lazily; the scan read %d of their %d items", lazy, all, scanned, items)
	if all < 50 || lazy < all*9/10 {
		t.Errorf("%d of %d corpus packages read lazily: want nearly all", lazy, all)
	}
}

// readPackage reads the package in dir, without an example's .expected/.
func readPackage(t *testing.T, dir string) kptpkg.Files {
	t.Helper()
	files, err := kptpkg.Read(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	for name := range files {
		if strings.HasPrefix(name, ".expected/") {
			delete(files, name)
		}
	}
	return files
}

// source is the package's resources as a ResourceList, as kpt fn source
// writes it: every item annotated with its file and index, files in path
// order, fnConfig (may be nil) the functionConfig.
func source(files kptpkg.Files, fnConfig *yaml.RNode) ([]byte, error) {
	var nodes []*yaml.RNode
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !kptpkg.IsResource(p) {
			continue
		}
		read, err := kptpkg.Items(p, files[p])
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, read...)
	}
	var b bytes.Buffer
	w := kio.ByteWriter{Writer: &b, KeepReaderAnnotations: true, FunctionConfig: fnConfig,
		WrappingKind: resourcelist.Kind, WrappingAPIVersion: resourcelist.APIVersion}
	if err := w.Write(nodes); err != nil {
		return nil, fmt.Errorf("cannot write the ResourceList: %w", err)
	}
	return b.Bytes(), nil
}
