package render

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

// Input is the package tree to render.
type Input struct {
	// Files is the package tree (the root Kptfile at "Kptfile").
	Files kptpkg.Files
	// Items are the tree's items as Files.Resources("", true) gives them,
	// possibly changed by the caller; nil reads them from Files. Render
	// changes these nodes: they become the output.
	Items []*yaml.RNode
	// Before are the items as read from Files, unchanged (so that files
	// whose items did not change keep their bytes); nil reads them.
	Before []*yaml.RNode
}

// Options say how to run the pipelines.
type Options struct {
	// Runtime picks the runner of each pipeline entry.
	Runtime Runtime
	// Env is the clock and environment kptkit's own functions see (and the
	// clock that times the steps).
	Env krmfn.Env
	// AllowExec allows `exec:` entries, as kpt's --allow-exec.
	AllowExec bool
	// Path is where the package lives (kpt puts its absolute path on every
	// item functions see, and names the root package by its base name); ""
	// for a package without a place.
	Path string
	// Progress, when set, hears of every package and step as it starts and
	// ends (kpt prints these).
	Progress func(Event)
	// Watch, when set, runs each step of kptkit's own functions (InProcess,
	// which nothing can stop) and returns an error when it stopped waiting
	// for it, at the step's time limit: the step fails with that error,
	// its work abandoned. Other runners bound their own runs.
	Watch func(step func()) error
}

// Output is a rendered package tree.
type Output struct {
	// Files is the rendered tree; nil when a step failed (nothing is to be
	// written, as kpt writes nothing).
	Files kptpkg.Files
	// Items are the rendered items with their path (relative to the root)
	// and index annotations, as `kpt fn render -o stdout` writes them; nil
	// when a step failed.
	Items []*yaml.RNode
	// Results are kpt's FunctionResultList: one entry for every step run.
	Results ResultList
	// Executed counts the steps that passed; Packages the packages rendered.
	Executed, Packages int
	// Failure is nil on success; else which step failed and why.
	Failure *Failure
}

// Event is news of the render for Options.Progress.
type Event struct {
	Package  string    // the package's display path: the root's name, then /sub
	Function *Function // nil: the package's pipeline starts (End: it ended)
	End      bool      // the step (or pipeline) has ended
	Count    int       // items a step with selectors runs on; -1 without
	Duration time.Duration
	Result   *StepResult // the step's result, when it ran
	Err      error       // why the step failed
}

// packageTree is what Render knows of the tree's packages.
type packageTree struct {
	files *kptpkg.Layout
	dirs  []string              // package folders, "" for the root
	fns   map[string][]Function // pipeline of each package
	local map[string][]*yaml.RNode
}

// Render runs the Kptfile pipelines of a package tree as `kpt fn render`
// does: each subpackage's pipeline (depth first) on its own items, then the
// parent's on its items and everything below; mutators, then validators.
// It is safe to call from many goroutines at once with one Runtime.
func Render(in Input, opts Options) Output {
	r := &renderer{opts: opts, files: in.Files, results: newResultList(), pkgPath: map[string]string{}}
	out := r.render(in)
	out.Results = r.results
	out.Executed, out.Packages = r.executed, r.packages
	return out
}

type renderer struct {
	opts     Options
	files    kptpkg.Files
	tree     packageTree
	pkgPath  map[string]string // package-path annotation → folder
	results  ResultList
	executed int
	packages int
}

func (r *renderer) render(in Input) Output {
	if _, ok := in.Files[kptfile.FileName]; !ok {
		return Output{Failure: &Failure{Message: "no Kptfile at the package root: not a kpt package"}}
	}
	before, err := r.readTree(in)
	if err != nil {
		return Output{Failure: r.fail("", nil, err)}
	}
	items, err := r.hydrate("")
	if err == nil {
		err = r.rootPaths(items)
	}
	if err != nil {
		return Output{Failure: r.fail("", nil, err)}
	}
	if before == nil {
		if before, err = in.Files.Resources("", true); err != nil {
			return Output{Failure: &Failure{Message: err.Error()}}
		}
	}
	files, err := kptpkg.SinkAll(withIndexes(items), before, in.Files)
	if err != nil {
		return Output{Failure: &Failure{Message: err.Error()}}
	}
	return Output{Files: files, Items: items}
}

// display names a package as kpt prints it.
func (r *renderer) display(dir string) string {
	name := path.Base(r.opts.Path)
	if r.opts.Path == "" || name == "/" || name == "." {
		name = "."
	}
	if dir == "" {
		return name
	}
	return name + "/" + dir
}

// annotationPath is the package-path annotation of a package's items.
func (r *renderer) annotationPath(dir string) string {
	switch {
	case r.opts.Path == "" && dir == "":
		return "."
	case r.opts.Path == "":
		return dir
	}
	return path.Join(r.opts.Path, dir)
}

func (r *renderer) emit(e Event) {
	if r.opts.Progress != nil {
		r.opts.Progress(e)
	}
}

func (r *renderer) now() time.Time {
	if r.opts.Env.Now == nil {
		return time.Time{}
	}
	return r.opts.Env.Now()
}

// subpackages returns the packages directly below dir in kpt's order (by
// their path as a string).
func (r *renderer) subpackages(dir string) []string {
	subs := r.tree.files.Subpackages(dir)
	slices.Sort(subs)
	return subs
}

// hydrate renders the package at dir and everything below it.
func (r *renderer) hydrate(dir string) ([]*yaml.RNode, error) {
	var input []*yaml.RNode
	for _, sub := range r.subpackages(dir) {
		out, err := r.hydrate(sub)
		if err != nil {
			return nil, err
		}
		input = append(input, out...)
	}
	input = append(input, r.tree.local[dir]...)
	r.packages++
	return r.runPipeline(dir, input)
}

// rootPaths makes every item's path relative to the root, as kpt does
// after the last pipeline, and refuses paths that leave their package, lie
// in .git, or name a file of the tree that was not read as resources.
func (r *renderer) rootPaths(items []*yaml.RNode) error {
	var unread func(string) string
	for _, n := range items {
		pp, _, fast := annotation(n, packagePathAnnotation)
		if !fast {
			pp = n.GetAnnotations(packagePathAnnotation)[packagePathAnnotation]
		}
		dir, ok := r.pkgPath[pp]
		if !ok {
			return fmt.Errorf("%s: package path %q is not a package of the tree", describe(n), pp)
		}
		p := filePath(n)
		if err := insidePackage(p); err != nil {
			return err
		}
		p = path.Join(dir, path.Clean(p))
		if err := kptpkg.CheckPath("file", p); err != nil {
			return fmt.Errorf("%s: %w", describe(n), err)
		}
		if unread == nil {
			unread = r.unread()
		}
		if why := unread(p); why != "" {
			return fmt.Errorf("%s: function must not write over %s: %s", describe(n), p, why)
		}
		for _, a := range []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation} { //nolint:staticcheck // kpt sets both
			if err := setAnnotation(n, a, p); err != nil {
				return err
			}
		}
		if err := clearAnnotation(n, packagePathAnnotation); err != nil {
			return err
		}
	}
	return nil
}

// unread returns what says why an item must not be written at a path of
// the tree (relative to its root): the file there was not read as the
// package's resources — not a resource file, or left out by .krmignore —
// so no function saw it, and kpt would replace it blindly. "" for a path
// an item may take.
func (r *renderer) unread() func(string) string {
	var read map[string]bool
	return func(p string) string {
		if _, ok := r.files[p]; !ok {
			return ""
		}
		if !kptpkg.IsResource(p) {
			return "the file there is not a resource file, and kptkit replaces no file a function was not given"
		}
		if read == nil {
			read = map[string]bool{}
			for _, q := range r.files.ResourcePaths("", true) {
				read[q] = true
			}
		}
		if !read[p] {
			return kptpkg.IgnoreFile + " leaves the file there out of the package's resources, and kptkit replaces no file a function was not given"
		}
		return ""
	}
}

// insidePackage refuses a path that leaves its package: absolute, or
// with .. leading out (kpt's words); or that lies in git's folder .git
// (which kpt would write).
func insidePackage(p string) error {
	c := path.Clean(p)
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") || strings.ContainsAny(p, "\\\x00") {
		return fmt.Errorf("function must not modify resources outside of package: resource has path %s", p)
	}
	// c is clean: its one "." segment, when it is ".", is CheckPath's to
	// refuse once joined to its package.
	if bad := kptpkg.CheckSegments(c); bad != nil && bad.DotGit != "" {
		return fmt.Errorf("function must not modify resources in git's folder: resource has path %s (invalid path: %s)", p, bad.DotGit)
	}
	return nil
}

// withIndexes gives items without an index one after the others of their
// file, as kpt's package writer does; the items given keep their
// annotations (copies are annotated).
func withIndexes(items []*yaml.RNode) []*yaml.RNode {
	out := items
	for i, n := range items {
		if _, idx := kptpkg.FileAnnotations(n); idx == "" {
			if len(out) > 0 && &out[0] == &items[0] {
				out = slices.Clone(items)
			}
			out[i] = n.Copy()
		}
	}
	if len(out) > 0 && &out[0] != &items[0] {
		_ = kioutil.DefaultPathAndIndexAnnotation("", out)
	}
	return out
}

func describe(n *yaml.RNode) string {
	s := n.GetKind() + "/" + n.GetName()
	if p := filePath(n); p != "" {
		s += " (" + p + ")"
	}
	return s
}
