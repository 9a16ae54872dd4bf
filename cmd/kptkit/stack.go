package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/stack"
	"github.com/kptkit/kptkit/pkg/stack/pkgfile"
	"github.com/kptkit/kptkit/pkg/stack/pkgfile/jsonnet"
)

var stackCommand = &command{
	name:    "stack",
	summary: "apply, diff, show, uninstall a package's Stack; convert pkger files, export tracked resources (stack --help)",
	help: `The commands over a package's Stack, the record apply-stack keeps in the
package (stack.yaml). PACKAGE is a kpt package folder (default .); the
package is read as kpt reads it (Kptfiles, *.yaml, *.yml, subpackages,
.krmignore) and nothing but the Stack's file is written.`,
	subs: []*command{
		{name: "show", synopsis: "[--json | --table | --summary] [--stack NAME] [--env KEY=VALUE]... [--secret KEY]... [PACKAGE]",
			help: `print the record apply-stack keeps in the package in pkger's form
(stack_id, createdAt, updatedAt, config, resources): YAML, JSON with
--json, or a table with --table; with --summary, pkger's summary of the
package as it would be applied: every resource with its id, names,
associations and environment references, the label mappings,
missingEnvRefs and missingSecrets`,
			run: stackShow},
		{name: "apply", synopsis: "[--stack NAME] [--env KEY=VALUE]... [--secret KEY]... [PACKAGE]",
			help: `apply the package folder in process (pkger's influx apply -f): as
kpt fn eval --exec apply-stack would, also for items kpt refuses (a
metadata.name that is an environment reference); writes the Stack`,
			run: stackApply},
		{name: "diff", synopsis: "[--json] [--stack NAME] [--env KEY=VALUE]... [--secret KEY]... [PACKAGE]",
			help: `what applying the package would change (a dry run, nothing written): a
unified diff against the contents the Stack recorded, or pkger's diff as
JSON with --json`,
			run: stackDiff},
		{name: "uninstall", synopsis: "[--stack NAME] [--delete-files] PACKAGE",
			help: `pkger's UninstallStack: every tracked resource is removed from the
record, which keeps the stack (eventType uninstall); --delete-files also
deletes the files that held only tracked resources`,
			run: stackUninstall},
		{name: "convert", synopsis: "[-o OUT] [--timeout DURATION] [--memory SIZE] FILE",
			help: `turn a pkger package file (JSON array or object, YAML, Jsonnet) into
package YAML, on stdout or into OUT. Jsonnet is evaluated in a child process
of kptkit, its imports read below the file's folder: one that runs longer
than --timeout or maps more than --memory for its data fails`,
			run: stackConvert},
		{name: "export", synopsis: "[--format yaml|json] [-o OUT] [PACKAGE]",
			help: `write the resources the stack tracks (no Kptfiles, local-config or
in-cluster items, no Stacks) as one package file, without kpt's
bookkeeping annotations`,
			run: stackExport},
	},
}

func stackShow(c *call, args []string) error {
	fs := c.flags()
	asJSON := fs.Bool("json", false, "print pkger's record as JSON")
	asTable := fs.Bool("table", false, "print the record as a table")
	summary := fs.Bool("summary", false, "print pkger's summary of the package")
	f := addStackApplyFlags(fs)
	name := f.stack
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	stdout := c.stdout
	switch {
	case *asJSON && *asTable:
		return usageErrorf("--json and --table: choose one")
	case *summary && *asTable:
		return usageErrorf("--summary and --table: the summary is YAML or JSON")
	case !*summary && (len(f.env.m) > 0 || len(f.secrets) > 0):
		return usageErrorf("--env and --secret go with --summary")
	case *summary:
		return stackSummary(f, stackArg(fs), *asJSON, stdout, c.stderr)
	}
	rl, err := stackReadPackage(stackArg(fs))
	if err != nil {
		return err
	}
	st, err := stack.Read(rl, *name)
	if err != nil {
		return err
	}
	if *asTable {
		_, err = io.WriteString(stdout, stack.Table(st))
		return err
	}
	render := stack.YAML
	if *asJSON {
		render = stack.JSON
	}
	out, err := render(st)
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

func stackConvert(c *call, args []string) error {
	fs := c.flags()
	out := fs.String("o", "", "write to the file `OUT` instead of stdout")
	lf := addEvalLimits(fs)
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	stdout := c.stdout
	if fs.NArg() != 1 {
		return usageErrorf("name the package file to convert")
	}
	limits, err := lf.limits()
	if err != nil {
		return usageError{err}
	}
	file := fs.Arg(0)
	dir := filepath.Dir(file)
	data, err := pkgfile.Convert(os.DirFS(dir), filepath.Base(file), file, childJsonnet{dir: dir, limits: limits})
	if err != nil {
		return err
	}
	return writeOutput(*out, data, stdout)
}

// jsonnetWork is the child's work that evaluates Jsonnet.
const jsonnetWork = "jsonnet"

// childJsonnet evaluates Jsonnet in a child process of kptkit, within
// limits (go-jsonnet can neither be stopped nor bounded in process), its
// imports read below dir.
type childJsonnet struct {
	dir    string
	limits bounded.Limits
}

// Evaluate implements pkgfile.Evaluator.
func (j childJsonnet) Evaluate(name string, src []byte) ([]byte, error) {
	res, err := bounded.Child(self(), jsonnetWork, []string{j.dir, name}, j.limits).Run(src)
	switch {
	case err != nil:
		return nil, err
	case res.Code != 0:
		return nil, errors.New(strings.TrimSpace(string(res.Stderr)))
	}
	return res.Stdout, nil
}

// evaluateJsonnet is the child's side of childJsonnet: the program on
// stdin, its folder and name as arguments, its JSON on stdout; imports
// are read through os.Root, never outside the folder.
func evaluateJsonnet(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "want the program's folder and name")
		return 2
	}
	src, err := io.ReadAll(stdin)
	if err == nil {
		var root *os.Root
		if root, err = os.OpenRoot(args[0]); err == nil {
			defer root.Close()
			if src, err = (jsonnet.VM{FS: root.FS()}).Evaluate(args[1], src); err == nil {
				_, err = stdout.Write(src)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func stackExport(c *call, args []string) error {
	fs := c.flags()
	format := fs.String("format", "", "yaml or json, `FORMAT` (default: by -o's extension, else yaml)")
	out := fs.String("o", "", "write to the file `OUT` instead of stdout")
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	stdout := c.stdout
	enc := pkgfile.YAML
	switch strings.ToLower(*format) {
	case "json":
		enc = pkgfile.JSON
	case "yaml", "yml":
	case "":
		if strings.EqualFold(filepath.Ext(*out), ".json") {
			enc = pkgfile.JSON
		}
	default:
		return usageErrorf("--format %q: want yaml or json", *format)
	}
	rl, err := stackReadPackage(stackArg(fs))
	if err != nil {
		return err
	}
	data, err := stack.Export(rl, enc)
	if err != nil {
		return err
	}
	return writeOutput(*out, data, stdout)
}

func stackArg(fs *flag.FlagSet) string {
	if fs.NArg() == 0 {
		return "."
	}
	return fs.Arg(0)
}

// writeOutput writes what a command makes to the file its -o names
// (whole: pkgfs.WriteFile), or to stdout without one (or with -).
func writeOutput(file string, data []byte, stdout io.Writer) error {
	if file == "" || file == "-" {
		_, err := stdout.Write(data)
		return err
	}
	_, err := pkgfs.WriteFile(file, data)
	return err
}

// stackReadPackage reads a package folder (or one file) as kpt does,
// through kptpkg: its Kptfiles, .yaml and .yml files, subpackages included,
// .krmignore'd paths left out; each resource annotated with its path and
// index.
func stackReadPackage(root string) (*resourcelist.ResourceList, error) {
	p, err := stackLoad(root)
	if err != nil {
		return nil, err
	}
	return p.list(), nil
}
