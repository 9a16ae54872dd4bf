// Command kptkit runs kptkit's KRM functions from one binary
// (`kptkit <function>`, or the binary installed under a function's name) and
// the commands that work on whole packages and fleets.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/version"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

// commands are kptkit's commands beyond the functions, each declared in
// its own file (see command in cli.go); help lists them by name.
var commands = []*command{catalogCommand, functionRunnerCommand, imagesCommand, renderCommand, rpkgCommand, stackCommand, variantsCommand}

// versionCommand is `kptkit version` (also `kptkit --version`), which help
// names beside help itself.
var versionCommand = &command{name: "version", help: "print the module version and the VCS revision kptkit was built from",
	run: func(c *call, args []string) error {
		if err := c.parse(c.flags(), args, 0); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "kptkit %s\n", currentVersion())
		return nil
	}}

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is kptkit: a child's work, a function (by the binary's name or the
// first argument) or a command; it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A child kptkit started to run bounded work (hidden; before anything
	// else: its name may be a function's).
	if len(args) > 1 && args[1] == bounded.Arg {
		return bounded.Main(args[2:], stdin, stdout, stderr, childWorks())
	}
	// Installed (or linked) under a function's name, kptkit is that function.
	if f, ok := lookup(filepath.Base(args[0])); ok {
		return functions.Run(f, args[1:], stdin, stdout, stderr)
	}
	root := &call{path: "kptkit", usage: usage(), stdout: stdout, stderr: stderr}
	if len(args) < 2 {
		return root.exit(errNoArguments)
	}
	name := args[1]
	switch {
	case isHelp(name) && len(args) > 2 && !isHelp(args[2]): // kptkit help stack
		return run([]string{args[0], args[2], "--help"}, stdin, stdout, stderr)
	case isHelp(name):
		fmt.Fprint(stdout, root.usage)
		return 0
	case name == "version" || name == "--version":
		return versionCommand.main("kptkit version", args[2:], stdout, stderr)
	}
	if f, ok := lookup(name); ok {
		return functions.Run(f, args[2:], stdin, stdout, stderr)
	}
	if cmd := find(commands, name); cmd != nil {
		return cmd.main("kptkit "+name, args[2:], stdout, stderr)
	}
	return root.exit(usageErrorf("unknown %s %q", flagOr(name, "command"), name))
}

// lookup finds a function of the registry by its name.
func lookup(name string) (krmfn.Function, bool) {
	i := slices.IndexFunc(registry, func(f krmfn.Function) bool { return f.Name == name })
	if i < 0 {
		return krmfn.Function{}, false
	}
	return registry[i], true
}

func usage() string {
	var b strings.Builder
	b.WriteString(`kptkit: KRM functions for the kpt package lifecycle

Usage:
  kptkit <function> [--help | --version]
                               run a function: ResourceList on stdin, ResourceList on stdout
  kptkit <function> --max-input SIZE
                               read at most SIZE on stdin (default 256MiB; 0 for no limit)
  kptkit <command> <subcommand> [flags] [arguments]
  kptkit <command> --help      a command's subcommands; <subcommand> --help for its flags
  kptkit version               print the module version and VCS revision of this build
  kptkit help                  print this help

Functions:
`)
	for _, f := range registry {
		fmt.Fprintf(&b, "  %-22s %s\n", f.Name, summary(f.Name))
	}
	b.WriteString("\nCommands:\n")
	for _, cmd := range slices.SortedFunc(slices.Values(commands), func(a, b *command) int { return strings.Compare(a.name, b.name) }) {
		fmt.Fprintf(&b, "  %-22s %s\n", cmd.name, cmd.summary)
	}
	b.WriteString("\nA function's --help prints its README. Installed or linked under a function's\nname, kptkit runs that function.\n")
	return b.String()
}

// summary is the first sentence of a function's README after its title.
func summary(name string) string {
	var para []string
	for line := range strings.Lines(functions.Usage(name)) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "#") && len(para) == 0:
		case line == "" && len(para) > 0:
			return firstSentence(strings.Join(para, " "))
		case line != "":
			para = append(para, line)
		}
	}
	return firstSentence(strings.Join(para, " "))
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

// currentVersion is this build's module version and VCS revision.
func currentVersion() string { return version.Get().String() }
