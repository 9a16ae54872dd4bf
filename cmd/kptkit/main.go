// Command kptkit runs kptkit's KRM functions from one binary
// (`kptkit <function>`, or the binary installed under a function's name) and
// the commands that work on whole packages and fleets.
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/version"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

// registry lists the functions kptkit runs, in the order help shows them.
// Each function's file in this folder registers it.
var registry []krmfn.Function

// register adds a function to the registry.
func register(f krmfn.Function) { registry = append(registry, f) }

// commands are the subcommands beyond the functions (stack, variants,
// images), each registered by its own file in this folder.
var commands = map[string]command{}

// command is a subcommand: it takes its arguments (after its name) and
// returns the exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

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
	if len(args) < 2 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch cmd := args[1]; {
	case isHelp(cmd):
		if len(args) > 2 && !isHelp(args[2]) { // kptkit help stack
			return run([]string{args[0], args[2], "--help"}, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage())
		return 0
	case cmd == "version" || cmd == "--version":
		return runVersion(args[2:], stdout, stderr)
	default:
		if f, ok := lookup(cmd); ok {
			return functions.Run(f, args[2:], stdin, stdout, stderr)
		}
		if c, ok := commands[cmd]; ok {
			return c.run(args[2:], stdout, stderr)
		}
		what := "command"
		if strings.HasPrefix(cmd, "-") {
			what = "flag"
		}
		fmt.Fprintf(stderr, "kptkit: unknown %s %q\nRun 'kptkit help' for usage.\n", what, cmd)
		return 2
	}
}

// runVersion is `kptkit version`: the module version and VCS revision.
var runVersion = single("kptkit version", "Usage: kptkit version\n\nprint the module version and the VCS revision kptkit was built from\n",
	func(c *call, args []string) error {
		if err := c.parse(c.flags(), args, 0); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "kptkit %s\n", currentVersion())
		return nil
	})

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
	if len(commands) > 0 {
		b.WriteString("\nCommands:\n")
		for _, name := range slices.Sorted(maps.Keys(commands)) {
			fmt.Fprintf(&b, "  %-22s %s\n", name, commands[name].summary)
		}
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
