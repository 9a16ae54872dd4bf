package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/stack"
	"github.com/kptkit/kptkit/pkg/stack/pkgfile"
)

func init() {
	commands["stack"] = command{
		summary: "show a package's Stack, convert pkger package files, export tracked resources (stack --help)",
		run:     runStack,
	}
}

const stackUsage = `Usage:
  kptkit stack show [--json | --table] [--stack NAME] [PACKAGE]
      print the record apply-stack keeps in the package (default .) in
      pkger's form (stack_id, createdAt, updatedAt, config, resources): YAML,
      JSON with --json, or a table with --table
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
	sub := map[string]func([]string, io.Writer) error{
		"show": stackShow, "convert": stackConvert, "export": stackExport,
	}
	switch run, ok := sub[args[0]]; {
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stdout, stackUsage)
		return 0
	case !ok:
		fmt.Fprintf(stderr, "kptkit stack: unknown command %q\n\n%s", args[0], stackUsage)
		return 2
	default:
		err := run(args[1:], stdout)
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

func stackShow(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print pkger's record as JSON")
	asTable := fs.Bool("table", false, "print the record as a table")
	name := fs.String("stack", "", "the Stack to show")
	if err := stackFlags(fs, args, 1); err != nil {
		return err
	}
	if *asJSON && *asTable {
		return stackUsageError{errors.New("--json and --table: choose one")}
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

func stackConvert(args []string, stdout io.Writer) error {
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

func stackExport(args []string, stdout io.Writer) error {
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

// stackReadPackage reads a package folder (or one file) as kpt does: its
// Kptfiles, .yaml, .yml and .json files, subpackages included, hidden
// folders and .krmignore'd paths left out; each resource annotated with its
// path and index.
func stackReadPackage(root string) (*resourcelist.ResourceList, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	var files kptpkg.Files
	if info.IsDir() {
		if files, err = pkgfs.Read(root); err != nil {
			return nil, err
		}
	} else {
		b, err := os.ReadFile(root)
		if err != nil {
			return nil, err
		}
		files = kptpkg.Files{filepath.Base(root): b}
	}
	items := &yaml.Node{Kind: yaml.SequenceNode}
	for _, f := range files.Paths() {
		if !isStackFile(f) || files.Ignored(f) {
			continue
		}
		nodes, err := stackDocuments(f, files[f])
		if err != nil {
			return nil, err
		}
		items.Content = append(items.Content, nodes...)
	}
	doc := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
	for _, f := range []yaml.Filter{
		yaml.SetField("apiVersion", yaml.NewStringRNode(resourcelist.APIVersion)),
		yaml.SetField("kind", yaml.NewStringRNode(resourcelist.Kind)),
		yaml.SetField("items", yaml.NewRNode(items)),
	} {
		if err := doc.PipeE(f); err != nil {
			return nil, err
		}
	}
	s, err := doc.String()
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", root, err)
	}
	return resourcelist.Parse([]byte(s))
}

// isStackFile: Kptfiles, and YAML and JSON files.
func isStackFile(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return path.Base(p) == kptfile.FileName || ext == ".yaml" || ext == ".yml" || ext == ".json"
}

// stackDocuments reads a file's resources, annotated with their path and
// index. Documents that are not resources (lists, scalars) are skipped.
func stackDocuments(file string, data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*yaml.Node
	for i := 0; ; i++ {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		n := yaml.NewRNode(&doc)
		if n.YNode().Kind != yaml.MappingNode {
			continue
		}
		for _, a := range [...][2]string{{kptfile.AnnotationPath, file}, {kptfile.AnnotationIndex, strconv.Itoa(i)}} {
			if err := n.PipeE(yaml.SetAnnotation(a[0], a[1])); err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", file, i, err)
			}
		}
		out = append(out, n.YNode())
	}
}
