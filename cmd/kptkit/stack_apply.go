package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack"
)

// stackPkg is a package the stack commands read: a folder (its files, and
// its items as kpt reads them) or one file.
type stackPkg struct {
	dir   string // "" for one file
	files kptpkg.Files
	items []*yaml.RNode
	out   *pkgfs.Out // the folder opened to write (its lock held); nil to read only
}

// stackLoad reads a package folder, or one package file, through kptpkg.
// A folder without a Kptfile is not read: it is no package (and reading
// it would report whatever YAML lies below it).
func stackLoad(root string) (*stackPkg, error) { return loadStackPkg(root, false) }

// stackLoadToWrite reads a package as stackLoad does, a folder through
// pkgfs.OpenOut: its lock is held from the read to the write
// (stackPkg.write), until close.
func stackLoadToWrite(root string) (*stackPkg, error) { return loadStackPkg(root, true) }

func loadStackPkg(root string, toWrite bool) (*stackPkg, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, pathError(root, err)
	}
	if !info.IsDir() {
		b, err := os.ReadFile(root)
		if err != nil {
			return nil, pathError(root, err)
		}
		items, err := kptpkg.Items(filepath.Base(root), b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", root, err)
		}
		return &stackPkg{items: items}, nil
	}
	if _, err := os.Stat(filepath.Join(root, "Kptfile")); errors.Is(err, fs.ErrNotExist) {
		return nil, notAPackage(root)
	}
	p := &stackPkg{dir: root}
	if toWrite {
		if p.out, err = pkgfs.OpenOut(root); err != nil {
			return nil, err
		}
	}
	if p.files, err = readPackage(p.out, root); err == nil {
		p.items, err = p.files.Resources("", true)
	}
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// close releases the package folder opened to write.
func (p *stackPkg) close() {
	if p.out != nil {
		p.out.Close()
	}
}

// notAPackage says that a folder the user named holds no Kptfile.
func notAPackage(dir string) error {
	if filepath.Clean(dir) == "." {
		return errors.New("the current folder is not a kpt package: it has no Kptfile (name the package folder)")
	}
	return fmt.Errorf("%s is not a kpt package: it has no Kptfile", dir)
}

// pathError names the path as the user gave it, and what went wrong.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot read %s: %w", path, pe.Err)
	}
	return err
}

// list returns the package's items (copies) as a ResourceList.
func (p *stackPkg) list() *resourcelist.ResourceList {
	return kptpkg.ResourceList(kptpkg.Copy(p.items), nil, nil)
}

// write writes the package's files as rl leaves them, all or nothing
// (pkgfs.Out.Write, through the folder opened to write): the files whose
// bytes changed (the Stack's) are replaced, those in remove deleted.
// Nothing else is touched: a file Sink leaves out stays as it was.
func (p *stackPkg) write(rl *resourcelist.ResourceList, remove []string) error {
	if p.dir == "" {
		return errors.New("name a package folder: the Stack is written into it")
	}
	after, err := kptpkg.Sink(rl.Nodes(), p.items, p.files)
	if err != nil {
		return err
	}
	next := maps.Clone(p.files)
	maps.Copy(next, after)
	for _, f := range remove {
		delete(next, f)
	}
	if _, err := p.out.Write(".", p.files, next); err != nil {
		return fmt.Errorf("cannot write %s: %w", p.dir, err)
	}
	return nil
}

// stackApplyFlags are the options of an apply on the command line: the
// Stack, the values of environment references, the secrets provided.
type stackApplyFlags struct {
	stack   *string
	env     *pairFlag
	secrets listFlag
}

func addStackApplyFlags(fs *flag.FlagSet) *stackApplyFlags {
	f := &stackApplyFlags{stack: fs.String("stack", "", "the `NAME` of the Stack to use (default: the package's only one)"),
		env: &pairFlag{m: map[string]string{}, want: "KEY=VALUE", empty: true}}
	fs.Var(f.env, "env", "the value of an environment reference, `KEY=VALUE` (repeat for more)")
	fs.Var(&f.secrets, "secret", "a secret known to be provided, by its `KEY` (repeat for more)")
	return f
}

// options reads the apply's options as apply-stack reads its ApplyStack:
// the flags make one, the clock is SOURCE_DATE_EPOCH or the wall clock.
// A flag's mistake is a usage error naming the flag.
func (f *stackApplyFlags) options(dryRun bool) (stack.Options, error) {
	cfg := v1alpha1.ApplyStack{Stack: *f.stack, Secrets: f.secrets, DryRun: dryRun}
	if len(f.env.m) > 0 {
		cfg.EnvRefs = map[string]decode.AnyScalar{}
		for k, v := range f.env.m {
			cfg.EnvRefs[k] = decode.AnyScalar(v)
		}
	}
	opts, errs := stack.NewOptions(cfg, functions.Env())
	var (
		msgs  []string
		usage bool
	)
	for _, e := range errs {
		name, _, _ := strings.Cut(e.Path, "[")
		if flag, ok := applyStackFlags[name]; ok {
			msgs, usage = append(msgs, flag+": "+e.Msg), true
			continue
		}
		msgs = append(msgs, e.Error())
	}
	switch {
	case len(msgs) == 0:
		return opts, nil
	case usage:
		return opts, usageError{errors.New(strings.Join(msgs, "\n"))}
	}
	return opts, errors.New(strings.Join(msgs, "\n"))
}

// applyStackFlags name the flag that gives each field of the ApplyStack.
var applyStackFlags = map[string]string{"stack": "--stack", "envRefs": "--env", "secrets": "--secret"}

// load reads the package at root and its options (see options).
func (f *stackApplyFlags) load(root string, dryRun bool) (*stackPkg, *resourcelist.ResourceList, stack.Options, error) {
	opts, err := f.options(dryRun)
	if err != nil {
		return nil, nil, opts, err
	}
	load := stackLoadToWrite
	if dryRun {
		load = stackLoad
	}
	p, err := load(root)
	if err != nil {
		return nil, nil, opts, err
	}
	return p, p.list(), opts, nil
}

// preview dry-runs the package at root; a refused apply is an error (its
// problems are printed), warnings are printed too.
func (f *stackApplyFlags) preview(root string, stderr io.Writer) (*stack.Preview, stack.Options, error) {
	_, rl, opts, err := f.load(root, true)
	if err != nil {
		return nil, opts, err
	}
	preview, rs := stack.DryRun(rl, opts)
	return preview, opts, printResults(rs, io.Discard, stderr)
}

// stackApply applies a package folder in process (pkger's `influx apply
// -f`): the package is read as kpt reads it, but the items need not pass
// kpt's own checks (a metadata.name that is an environment reference).
func stackApply(c *call, args []string) error {
	fs := c.flags()
	f := addStackApplyFlags(fs)
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	stdout, stderr := c.stdout, c.stderr
	p, rl, opts, err := f.load(stackArg(fs), false)
	if err != nil {
		return err
	}
	defer p.close()
	rs, err := stack.Apply(rl, opts)
	if err != nil {
		return err
	}
	if err := printResults(rs, stdout, stderr); err != nil {
		return err
	}
	return p.write(rl, nil)
}

// stackDiff is a dry run: what applying the package would change, as a
// unified diff or (--json) pkger's diff.
func stackDiff(c *call, args []string) error {
	fs := c.flags()
	asJSON := fs.Bool("json", false, "print pkger's diff as JSON")
	f := addStackApplyFlags(fs)
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	stdout, stderr := c.stdout, c.stderr
	preview, _, err := f.preview(stackArg(fs), stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		out, err := preview.Diff().JSON()
		if err != nil {
			return err
		}
		_, err = stdout.Write(out)
		return err
	}
	_, err = io.WriteString(stdout, preview.Unified())
	return err
}

// stackSummary prints pkger's Summary of the package (show --summary).
func stackSummary(f *stackApplyFlags, root string, asJSON bool, stdout, stderr io.Writer) error {
	preview, opts, err := f.preview(root, stderr)
	if err != nil {
		return err
	}
	summary := preview.Summary(opts.Env)
	render := summary.YAML
	if asJSON {
		render = summary.JSON
	}
	out, err := render()
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// stackUninstall is pkger's UninstallStack: every resource the Stack
// tracks is removed from the record, which keeps the stack; with
// --delete-files the files that held only tracked resources go too.
func stackUninstall(c *call, args []string) error {
	fs := c.flags()
	f := addStackApplyFlags(fs)
	deleteFiles := fs.Bool("delete-files", false, "delete the files that hold only tracked resources")
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	stdout, stderr := c.stdout, c.stderr
	if fs.NArg() != 1 {
		return usageErrorf("name the package to uninstall")
	}
	p, rl, opts, err := f.load(fs.Arg(0), false)
	if err != nil {
		return err
	}
	defer p.close()
	var remove []string
	if *deleteFiles {
		if remove, err = stack.OwnedFiles(rl, opts); err != nil {
			return err
		}
	}
	rs, err := stack.Uninstall(rl, opts)
	if err != nil {
		return err
	}
	if err := printResults(rs, stdout, stderr); err != nil {
		return err
	}
	for _, f := range remove {
		fmt.Fprintf(stdout, "deleted file %s\n", f)
	}
	return p.write(rl, remove)
}

// printResults prints info results on stdout, warnings and errors on
// stderr, in the order they come (the changes in package order); with any
// error it returns one (the command failed).
func printResults(rs []result.Result, stdout, stderr io.Writer) error {
	for _, r := range rs {
		if r.Severity == result.SeverityInfo {
			fmt.Fprintln(stdout, r.Message)
			continue
		}
		fmt.Fprintf(stderr, "%s: %s\n", r.Severity, r.Message)
	}
	if errs := result.List(rs).Errors(); len(errs) > 0 {
		return fmt.Errorf("refused: %d error(s), nothing changed", len(errs))
	}
	return nil
}
