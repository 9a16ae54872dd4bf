package main

// The equivalence tests: `kptkit render` must give, byte for byte, the files
// `kpt fn render --allow-exec` gives with the same functions handed to kpt
// as exec binaries — kptkit's function binaries, the catalog's own mains
// (set-namespace, apply-replacements, starlark) and apply-setters' main on
// this kyaml (internal/builtinfn/apply-setters), all built by the test. The
// packages go into one tree (each a subpackage of an empty root), so that
// one run of each tool renders them all.
//
// Differences on purpose, named where they are allowed:
//   - kptkit keeps the bytes of a file whose items no function changed;
//     kpt writes every file anew in its own format (diffFormat).
//   - kpt adds a cnrm.cloud.google.com/blueprint annotation to Config
//     Connector resources (its usage attribution); the test turns it off
//     (KPT_DISABLE_ATTRIBUTION).
//   - set-namespace lists the namespaces it changed in map order: its
//     message is compared with the list sorted.
//   - a failed render's own error message is kptkit's (every Kptfile mistake
//     at once, a line each); the progress output is compared when the
//     render passes.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/builtinfn"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/render"
)

// equivBinaries are the binaries both tools run, built once.
type equivBinaries struct {
	dir     string            // bin/ (kptkit's function binaries) and kptkit
	catalog map[string]string // catalog function → exec path of its main
}

var (
	equivOnce sync.Once
	equivBins equivBinaries
	equivErr  error
)

// buildEquivBinaries builds kptkit, its function binaries and the catalog
// functions' mains into .tools/equivalence (kept between runs: go build
// relinks a binary only when its code changed).
func buildEquivBinaries(t testing.TB) equivBinaries {
	t.Helper()
	equivOnce.Do(func() {
		// A folder that lasts: go build relinks only what changed.
		dir, err := filepath.Abs("../../.tools/equivalence")
		if err != nil {
			equivErr = err
			return
		}
		equivBins = equivBinaries{dir: dir, catalog: map[string]string{}}
		builds := [][]string{{"-o", filepath.Join(dir, "kptkit"), "."}}
		fns, _ := filepath.Glob("../../functions/*/main.go")
		for _, f := range fns {
			builds = append(builds, []string{"-o", filepath.Join(dir, "bin", filepath.Base(filepath.Dir(f))), "./" + filepath.Dir(f)})
		}
		for _, f := range builtinfn.Functions {
			pkg := builtinfn.Module + "/" + f.Name
			if f.Name == "apply-setters" {
				pkg = "../../internal/builtinfn/apply-setters"
			}
			out := filepath.Join(dir, "catalog", f.Name)
			equivBins.catalog[f.Name] = out
			builds = append(builds, []string{"-o", out, pkg})
		}
		var wg sync.WaitGroup
		errs := make([]error, len(builds))
		for i, args := range builds {
			wg.Go(func() {
				cmd := exec.Command("go", append([]string{"build"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("go build %v: %v\n%s", args, err, out)
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil && equivErr == nil {
				equivErr = err
			}
		}
	})
	if equivErr != nil {
		t.Fatal(equivErr)
	}
	return equivBins
}

// equivTree is a package tree to render: its name under the root, and
// the folder it is copied from.
type equivTree struct{ name, src string }

// renderBoth renders the trees with kptkit and with kpt and compares the
// files, the exit codes and the results. It returns how many files differ
// only as named.
func renderBoth(t *testing.T, trees []equivTree) int {
	t.Helper()
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("kpt is not installed (apt-get install google-cloud-cli-kpt)")
	}
	t0 := time.Now()
	bins := buildEquivBinaries(t)
	t.Logf("binaries in %v", time.Since(t0))
	tmp := t.TempDir()
	roots := map[string]string{}
	for _, side := range []string{"kptkit", "kpt"} {
		root := filepath.Join(tmp, side, "examples", "root")
		roots[side] = root
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(bins.dir, "bin"), filepath.Join(tmp, side, "bin")); err != nil {
			t.Fatal(err)
		}
		root0 := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: root\n"
		if err := os.WriteFile(filepath.Join(root, "Kptfile"), []byte(root0), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tr := range trees {
			files, err := pkgfs.Read(tr.src)
			if err != nil {
				t.Fatal(err)
			}
			if err := pkgfs.Write(filepath.Join(root, tr.name), nil, files); err != nil {
				t.Fatal(err)
			}
		}
	}
	original, err := pkgfs.Read(roots["kptkit"])
	if err != nil {
		t.Fatal(err)
	}
	swaps := toExec(t, roots["kpt"], bins.catalog)

	run := func(dir string, env []string, name string, args ...string) (int, string) {
		code, stdout, stderr := runIn(t, dir, env, name, args...)
		return code, stdout + stderr
	}
	epoch := []string{"SOURCE_DATE_EPOCH=1700000000"}
	compareStdout(t, roots, bins, kpt, epoch, swaps)
	start := time.Now()
	kcode, kout := run(roots["kptkit"], epoch, filepath.Join(bins.dir, "kptkit"), "render", "--allow-exec", "--truncate-output=false", "--results-dir", filepath.Join(tmp, "results-kptkit"))
	mid := time.Now()
	pcode, pout := run(roots["kpt"], append(epoch, "KPT_DISABLE_ATTRIBUTION=1"), kpt, "fn", "render", "--allow-exec", "--truncate-output=false", "--results-dir", filepath.Join(tmp, "results-kpt"))
	t.Logf("kptkit render %v, kpt fn render %v", mid.Sub(start), time.Since(mid))
	if kcode != pcode {
		t.Fatalf("exit code: kptkit %d, kpt %d\nkptkit:\n%s\nkpt:\n%s", kcode, pcode, kout, pout)
	}
	fromExec(t, roots["kpt"], swaps)
	// The progress output is kpt's; a failure's message is kptkit's own
	// (every Kptfile mistake at once, on a line each).
	if diff := cmp.Diff(normalizeLog(pout, tmp, "kpt", swaps), normalizeLog(kout, tmp, "kptkit", nil)); diff != "" && kcode == 0 {
		t.Errorf("the progress output differs (-kpt +kptkit):\n%s", diff)
	}

	got, err := pkgfs.Read(roots["kptkit"])
	if err != nil {
		t.Fatal(err)
	}
	want, err := pkgfs.Read(roots["kpt"])
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range union(got, want) {
			if !yield(p) {
				return
			}
		}
	}) {
		g, w := got[p], want[p]
		switch {
		case bytes.Equal(g, w):
		case diffFormat(p, original, g, w):
			named++
		default:
			t.Errorf("%s: kptkit and kpt differ (-kpt +kptkit):\n%s", p, cmp.Diff(string(w), string(g)))
		}
	}
	compareResults(t, filepath.Join(tmp, "results-kptkit", "results.yaml"), filepath.Join(tmp, "results-kpt", "results.yaml"), swaps)
	if t.Failed() {
		t.Logf("kptkit:\n%s\nkpt:\n%s", kout, pout)
	}
	return named
}

// runIn runs a command in dir with more environment; it returns the exit
// code, stdout and stderr.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// compareStdout renders with -o stdout (which changes no file) and
// compares the ResourceLists, kpt's exec entries read as their images.
func compareStdout(t *testing.T, roots map[string]string, bins equivBinaries, kpt string, env []string, swaps []swap) {
	t.Helper()
	kcode, got, kerr := runIn(t, roots["kptkit"], env, filepath.Join(bins.dir, "kptkit"), "render", "--allow-exec", "-o", "stdout")
	pcode, want, perr := runIn(t, roots["kpt"], append(env, "KPT_DISABLE_ATTRIBUTION=1"), kpt, "fn", "render", "--allow-exec", "-o", "stdout")
	if kcode != pcode {
		t.Fatalf("-o stdout exit code: kptkit %d, kpt %d\n%s\n%s", kcode, pcode, kerr, perr)
	}
	for _, s := range swaps {
		want = strings.Replace(want, "exec: "+s.exec, "image: "+s.image, 1)
	}
	if got != want {
		t.Errorf("-o stdout differs (-kpt +kptkit):\n%s", cmp.Diff(want, got))
	}
}

// duration is a step's time as kpt prints it.
var duration = regexp.MustCompile(`" in [0-9.]+[mµn]?s\n`)

// normalizeLog makes a tool's progress output comparable: times, the
// results folder, and kpt's exec entries read as their images.
func normalizeLog(log, tmp, tool string, swaps []swap) string {
	log = sortNamespaces(duration.ReplaceAllString(log, "\" in T\n"))
	log = strings.ReplaceAll(log, filepath.Join(tmp, "results-"+tool), "RESULTS")
	for _, s := range swaps {
		log = strings.ReplaceAll(log, strconv.Quote(s.exec), strconv.Quote(s.image))
	}
	return log
}

func union(a, b kptpkg.Files) map[string]bool {
	m := map[string]bool{}
	for p := range a {
		m[p] = true
	}
	for p := range b {
		m[p] = true
	}
	return m
}

// diffFormat reports whether a file differs only as named: kptkit kept
// the original bytes, kpt wrote the same items anew in its format.
func diffFormat(p string, original kptpkg.Files, got, want []byte) bool {
	orig, ok := original[p]
	if !ok || !bytes.Equal(orig, got) {
		return false
	}
	items, err := kptpkg.Items(p, orig)
	if err != nil {
		return false
	}
	again, err := kptpkg.Encode(items)
	return err == nil && bytes.Equal(again, want)
}

// swap is a Kptfile line rewritten for kpt: an image entry made exec.
type swap struct{ file, image, exec string }

// catalogImage matches the catalog images the runtime has built in.
var catalogImage = regexp.MustCompile(`(?m)^(\s*-?\s*)image: *(\S+)\s*$`)

// toExec rewrites the catalog images of every Kptfile below root into
// exec entries of the catalog's mains.
func toExec(t testing.TB, root string, mains map[string]string) []swap {
	t.Helper()
	var swaps []swap
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "Kptfile" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b = catalogImage.ReplaceAllFunc(b, func(line []byte) []byte {
			m := catalogImage.FindSubmatch(line)
			fn := render.Function{Image: string(m[2])}
			for _, f := range builtinfn.Functions {
				repo := render.ParseImage(fn.Image).Repository
				if ok, _ := fn.Version(f.Version); ok && strings.HasSuffix(repo, "/"+f.Name) {
					swaps = append(swaps, swap{p, string(m[2]), mains[f.Name]})
					return []byte(string(m[1]) + "exec: " + mains[f.Name])
				}
			}
			return line
		})
		return os.WriteFile(p, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return swaps
}

// fromExec puts the images back into kpt's rendered Kptfiles.
func fromExec(t *testing.T, root string, swaps []swap) {
	t.Helper()
	for _, s := range swaps {
		b, err := os.ReadFile(s.file)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.Replace(b, []byte("exec: "+s.exec), []byte("image: "+s.image), 1)
		if err := os.WriteFile(s.file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// compareResults compares the two results.yaml files: kpt's exec entries
// read as the images they stand for, set-namespace's namespace lists
// sorted.
func compareResults(t *testing.T, gotFile, wantFile string, swaps []swap) {
	t.Helper()
	read := func(f string) render.ResultList {
		var rl render.ResultList
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &rl); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range rl.Items {
			it := &rl.Items[i]
			for _, s := range swaps {
				if it.Exec == s.exec {
					it.Exec, it.Image = "", s.image
				}
			}
			for _, r := range it.Results {
				r.Message = sortNamespaces(r.Message)
			}
		}
		return rl
	}
	got, want := read(gotFile), read(wantFile)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results differ (-kpt +kptkit):\n%s", diff)
	}
}

// namespaceList is set-namespace's message, whose list is in map order.
var namespaceList = regexp.MustCompile(`namespace (("[^"]*",?)+) updated to `)

// sortNamespaces sorts the namespace lists of set-namespace's messages in s.
func sortNamespaces(s string) string {
	return namespaceList.ReplaceAllStringFunc(s, func(m string) string {
		sub := namespaceList.FindStringSubmatch(m)
		list := strings.Split(sub[1], ",")
		sort.Strings(list)
		return "namespace " + strings.Join(list, ",") + " updated to "
	})
}

// TestRenderExamples: every example whose Kptfile pipelines use only
// functions kptkit has renders as kpt renders it.
func TestRenderExamples(t *testing.T) {
	t.Parallel()
	var trees, failing []equivTree
	for _, dir := range packageRoots(t, "../../examples") {
		ok, fails := usable(t, dir)
		if !ok || !hasPipeline(t, dir) {
			continue
		}
		rel, _ := filepath.Rel("../../examples", dir)
		tr := equivTree{strings.ReplaceAll(rel, "/", "-"), dir}
		if fails {
			failing = append(failing, tr)
		} else {
			trees = append(trees, tr)
		}
	}
	if len(trees) < 12 {
		t.Fatalf("%d examples to render, want the 12 or more with pipelines kptkit runs", len(trees))
	}
	named := renderBoth(t, trees)
	t.Logf("%d examples, %d files differ as named (kpt rewrites files no function changed)", len(trees), named)
	for _, tr := range failing {
		t.Run(tr.name, func(t *testing.T) { renderBoth(t, []equivTree{tr}) })
	}
}

// usable reports whether every pipeline entry of the tree at dir is one
// kptkit runs (kptkit's functions, the built-ins, exec binaries), and
// whether the example is one that fails.
func usable(t *testing.T, dir string) (ok, fails bool) {
	t.Helper()
	files, err := pkgfs.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	rt := &builtinfn.Runtime{}
	for _, pkg := range files.Packages() {
		kf, err := yaml.Parse(string(files[filepath.ToSlash(filepath.Join(pkg, "Kptfile"))]))
		if err != nil {
			return false, false
		}
		fns, _ := render.ParsePipeline(pkg, kf, nil)
		for _, f := range fns {
			if f.Exec != "" {
				continue
			}
			if _, err := (render.Functions{Functions: registry}).Runner(f); err == nil {
				continue
			}
			if _, err := rt.Runner(f); err != nil {
				return false, false
			}
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".expected", "config.yaml"))
	return true, bytes.Contains(cfg, []byte("exitCode: 1"))
}

// packageRoots returns the folders below dir that hold a Kptfile with
// none above them (each the root of a package tree).
func packageRoots(t *testing.T, dir string) []string {
	t.Helper()
	var roots []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.Join(p, "Kptfile")); err != nil {
			return nil
		}
		roots = append(roots, p)
		return filepath.SkipDir // a tree's subpackages come with it
	})
	if err != nil {
		t.Fatal(err)
	}
	return roots
}

// hasPipeline reports whether a Kptfile of the tree at dir has a pipeline.
func hasPipeline(t *testing.T, dir string) bool {
	t.Helper()
	files, err := pkgfs.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range files.Packages() {
		kf, err := yaml.Parse(string(files[filepath.ToSlash(filepath.Join(pkg, "Kptfile"))]))
		if err != nil {
			continue
		}
		if fns, _ := render.ParsePipeline(pkg, kf, nil); len(fns) > 0 {
			return true
		}
	}
	return false
}

// TestCorpusRender: every package tree of the Nephio catalog whose
// pipelines use only functions kptkit has (27 apply-replacements, 9
// set-namespace, 6 apply-setters and 4 starlark v0.4.3 steps among them)
// renders as kpt renders it.
func TestCorpusRender(t *testing.T) {
	t.Parallel()
	root := corpus.Nephio(t)
	var trees []equivTree
	for _, dir := range packageRoots(t, root) {
		if ok, _ := usable(t, dir); ok {
			rel, _ := filepath.Rel(root, dir)
			trees = append(trees, equivTree{strings.ReplaceAll(rel, "/", "-"), dir})
		}
	}
	if len(trees) < 50 {
		t.Fatalf("%d corpus packages to render, want the 50 or more whose pipelines kptkit runs", len(trees))
	}
	named := renderBoth(t, trees)
	t.Logf("%d package trees, %d files differ as named (kpt rewrites files no function changed)", len(trees), named)
}
