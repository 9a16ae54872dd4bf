package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/stack"
	"github.com/kptkit/kptkit/pkg/stack/pkgfile"
)

func init() {
	commands["stack"] = command{
		summary: "apply, diff, show, uninstall a package's Stack; convert pkger files, export tracked resources (stack --help)",
		run:     runStack,
	}
}

const stackUsage = `Usage:
  kptkit stack show [--json | --table] [--stack NAME] [PACKAGE]
      print the record apply-stack keeps in the package (default .) in
      pkger's form (stack_id, createdAt, updatedAt, config, resources): YAML,
      JSON with --json, or a table with --table
  kptkit stack show --summary [--json] [--stack NAME] [--env KEY=VALUE]... [--secret KEY]... [PACKAGE]
      print pkger's summary of the package as it would be applied: every
      resource with its id, names, associations and environment references,
      the label mappings, missingEnvRefs and missingSecrets
  kptkit stack apply [--stack NAME] [--env KEY=VALUE]... [--secret KEY]... [PACKAGE]
      apply the package folder in process (pkger's influx apply -f): as
      kpt fn eval --exec apply-stack would, also for items kpt refuses
      (a metadata.name that is an environment reference); writes the Stack
  kptkit stack diff [--json] [--stack NAME] [--env KEY=VALUE]... [--secret KEY]... [PACKAGE]
      what applying the package would change (a dry run, nothing written):
      a unified diff against the contents the Stack recorded, or pkger's
      diff as JSON with --json
  kptkit stack uninstall [--stack NAME] [--delete-files] PACKAGE
      pkger's UninstallStack: every tracked resource is removed from the
      record, which keeps the stack (eventType uninstall); --delete-files
      also deletes the files that held only tracked resources
  kptkit stack convert [-o OUT] FILE
      turn a pkger package file (JSON array or object, YAML, Jsonnet) into
      package YAML, on stdout or into OUT
  kptkit stack export [--format yaml|json] [-o OUT] [PACKAGE]
      write the resources the stack tracks (no Kptfiles, local-config or
      in-cluster items, no Stacks) as one package file, without kpt's
      bookkeeping annotations
`

func runStack(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, stackUsage)
		return 2
	}
	sub := map[string]func([]string, io.Writer, io.Writer) error{
		"show": stackShow, "convert": stackConvert, "export": stackExport,
		"apply": stackApply, "diff": stackDiff, "uninstall": stackUninstall,
	}
	switch run, ok := sub[args[0]]; {
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stdout, stackUsage)
		return 0
	case !ok:
		fmt.Fprintf(stderr, "kptkit stack: unknown command %q\n\n%s", args[0], stackUsage)
		return 2
	default:
		err := run(args[1:], stdout, stderr)
		var usage stackUsageError
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprint(stdout, stackUsage)
			return 0
		case errors.As(err, &usage):
			fmt.Fprintf(stderr, "kptkit stack %s: %v\n\n%s", args[0], err, stackUsage)
			return 2
		case err != nil:
			fmt.Fprintf(stderr, "kptkit stack %s: %v\n", args[0], err)
			return 1
		}
		return 0
	}
}

// stackUsageError is a mistake in the command line.
type stackUsageError struct{ error }

// stackFlags parses a subcommand's flags; it allows at most max arguments.
func stackFlags(fs *flag.FlagSet, args []string, max int) error {
	fs.SetOutput(io.Discard)
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return stackUsageError{err}
	}
	if fs.NArg() > max {
		return stackUsageError{fmt.Errorf("unexpected arguments %q", fs.Args()[max:])}
	}
	return nil
}

func stackShow(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print pkger's record as JSON")
	asTable := fs.Bool("table", false, "print the record as a table")
	summary := fs.Bool("summary", false, "print pkger's summary of the package")
	f := addStackApplyFlags(fs)
	name := f.stack
	if err := stackFlags(fs, args, 1); err != nil {
		return err
	}
	switch {
	case *asJSON && *asTable:
		return stackUsageError{errors.New("--json and --table: choose one")}
	case *summary && *asTable:
		return stackUsageError{errors.New("--summary and --table: the summary is YAML or JSON")}
	case !*summary && (len(f.env) > 0 || len(f.secrets) > 0):
		return stackUsageError{errors.New("--env and --secret go with --summary")}
	case *summary:
		return stackSummary(f, stackArg(fs), *asJSON, stdout, stderr)
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

func stackConvert(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	out := fs.String("o", "", "write to this file instead of stdout")
	if err := stackFlags(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return stackUsageError{errors.New("name the package file to convert")}
	}
	file := fs.Arg(0)
	data, err := pkgfile.Convert(os.DirFS(filepath.Dir(file)), filepath.Base(file))
	if err != nil {
		return err
	}
	return stackWrite(*out, data, stdout)
}

func stackExport(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "", "yaml or json (default: by -o's extension, else yaml)")
	out := fs.String("o", "", "write to this file instead of stdout")
	if err := stackFlags(fs, args, 1); err != nil {
		return err
	}
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
		return stackUsageError{fmt.Errorf("--format %q: want yaml or json", *format)}
	}
	rl, err := stackReadPackage(stackArg(fs))
	if err != nil {
		return err
	}
	data, err := stack.Export(rl, enc)
	if err != nil {
		return err
	}
	return stackWrite(*out, data, stdout)
}

func stackArg(fs *flag.FlagSet) string {
	if fs.NArg() == 0 {
		return "."
	}
	return fs.Arg(0)
}

func stackWrite(file string, data []byte, stdout io.Writer) error {
	if file == "" || file == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", file, err)
	}
	return nil
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
	return p.list(nil), nil
}
