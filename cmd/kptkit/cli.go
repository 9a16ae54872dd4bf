package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// group is a command with subcommands (kptkit stack, catalog, images,
// variants). All of them speak one way: `--help` (or `help`) prints the
// usage on stdout and exits 0, at every level, with the flags of a
// subcommand; an unknown subcommand or flag is an error naming it, exit 2;
// any other error is `kptkit <group> <sub>: <error>`, exit 1.
type group struct {
	name    string // "stack"
	summary string // one line, for kptkit help
	about   string // what the group is for, for kptkit <group> --help
	subs    []sub
}

// sub is a subcommand: its synopsis and help text, and what runs it.
type sub struct {
	name     string
	synopsis string // what follows `kptkit <group> <name>` in its usage
	help     string // what it does, a paragraph or more
	run      func(c *call, args []string) error
}

// call is one run of a subcommand.
type call struct {
	path           string // "kptkit stack show", for messages
	usage          string // its usage, printed by --help before its flags
	stdout, stderr io.Writer
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ error }

func usageErrorf(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode ends a subcommand with a code and no message (it has printed
// what went wrong, or --check found changes).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// errHelped: the usage was printed for --help.
var errHelped = errors.New("help printed")

// groups are the commands with subcommands, in the order they registered.
var groups []*group

// register makes the group a command of kptkit.
func (g *group) register() {
	commands[g.name] = command{summary: g.summary, run: g.run}
	groups = append(groups, g)
}

func (g *group) path() string { return "kptkit " + g.name }

func (g *group) run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, g.usage())
		return 2
	}
	name := args[0]
	if isHelp(name) {
		if len(args) > 1 && !isHelp(args[1]) { // kptkit stack help show
			return g.run([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, g.usage())
		return 0
	}
	s, ok := g.sub(name)
	if !ok {
		what := "subcommand"
		if strings.HasPrefix(name, "-") {
			what = "flag"
		}
		fmt.Fprintf(stderr, "%s: unknown %s %q (the subcommands are %s)\nRun '%s --help' for usage.\n", g.path(), what, name, g.names(), g.path())
		return 2
	}
	c := &call{path: g.path() + " " + s.name, usage: g.subUsage(s), stdout: stdout, stderr: stderr}
	return c.exit(s.run(c, args[1:]))
}

// single runs a command without subcommands (kptkit version, kptkit
// render) in the groups' voice: run defines its flags on c.flags() and
// calls c.parse first.
func single(path, usage string, run func(c *call, args []string) error) func([]string, io.Writer, io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		c := &call{path: path, usage: usage, stdout: stdout, stderr: stderr}
		return c.exit(run(c, args))
	}
}

// exit turns a subcommand's error into its exit code, printing it.
func (c *call) exit(err error) int {
	var (
		usage usageError
		code  exitCode
	)
	switch {
	case err == nil, errors.Is(err, errHelped):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(c.stderr, "%s: %v\nRun '%s --help' for usage.\n", c.path, err, c.path)
		return 2
	case errors.As(err, &code):
		return int(code)
	}
	fmt.Fprintf(c.stderr, "%s: %v\n", c.path, err)
	return 1
}

func (g *group) sub(name string) (sub, bool) {
	for _, s := range g.subs {
		if s.name == name {
			return s, true
		}
	}
	return sub{}, false
}

func (g *group) names() string {
	var names []string
	for _, s := range g.subs {
		names = append(names, s.name)
	}
	if len(names) == 1 {
		return "just " + names[0]
	}
	return strings.Join(names, ", ")
}

// usage is the group's help: every subcommand with its synopsis and help.
func (g *group) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s <subcommand> [flags] [arguments]\n\n", g.path())
	if g.about != "" {
		b.WriteString(strings.TrimSpace(g.about) + "\n\n")
	}
	b.WriteString("Subcommands:\n")
	for _, s := range g.subs {
		fmt.Fprintf(&b, "  %s %s\n%s", s.name, s.synopsis, indent(s.help, "      "))
	}
	fmt.Fprintf(&b, "\nRun '%s <subcommand> --help' for its flags.\n", g.path())
	return b.String()
}

// subUsage is a subcommand's help; --help adds its flags.
func (g *group) subUsage(s sub) string {
	return fmt.Sprintf("Usage: %s %s %s\n\n%s", g.path(), s.name, s.synopsis, indent(s.help, ""))
}

// flags returns a flag set for the subcommand that prints nothing itself.
func (c *call) flags() *flag.FlagSet {
	fs := flag.NewFlagSet(c.path, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse reads the flags (before, between or after the arguments) and
// allows at most maxArgs arguments (-1: any). --help prints the usage and
// the flags and returns errHelped; mistakes are usageErrors naming the flag
// or argument.
func (c *call) parse(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(c.stdout, c.usage)
			printFlags(c.stdout, fs)
			return errHelped
		}
		return usageError{flagError(err)}
	}
	if maxArgs >= 0 && fs.NArg() > maxArgs {
		if maxArgs == 0 {
			return usageErrorf("unexpected argument %q: it takes none", fs.Arg(0))
		}
		return usageErrorf("unexpected argument %q", fs.Arg(maxArgs))
	}
	return nil
}

// flagError rewords the flag package's errors with flags written as the
// usage writes them (--name, -o).
func flagError(err error) error {
	msg := err.Error()
	rewrite := []struct{ prefix, format string }{
		{"flag provided but not defined: -", "unknown flag %s"},
		{"flag needs an argument: -", "flag %s needs a value"},
	}
	for _, r := range rewrite {
		if name, ok := strings.CutPrefix(msg, r.prefix); ok {
			return fmt.Errorf(r.format, dashed(name))
		}
	}
	// invalid value "x" for flag -jobs: parse error
	// invalid boolean value "x" for -render: parse error
	if m := invalidFlag.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: %s: %s", dashed(m[2]), m[1], m[3])
	}
	return err
}

var invalidFlag = regexp.MustCompile(`^(invalid (?:boolean )?value ".*") for (?:flag )?-(\S+): (.*)$`)

// dashed writes a flag's name as the usage does: -o, --name.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printFlags lists a flag set's flags, `--name VALUE` then what it does.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		switch arg { // the flag package's names for a value without one of its own
		case "string", "value":
			arg = "VALUE"
		case "int", "uint", "float":
			arg = "N"
		}
		fmt.Fprintf(&b, "  %s", dashed(f.Name))
		if arg != "" && !isBoolFlag(f) {
			fmt.Fprintf(&b, " %s", arg)
		}
		b.WriteString("\n" + indent(usage, "      "))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			fmt.Fprintf(&b, "      (default %s)\n", f.DefValue)
		}
	})
	if b.Len() == 0 {
		return
	}
	fmt.Fprint(w, "\nFlags:\n"+b.String())
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// indent indents every non-empty line of s and ends it with a newline.
func indent(s, prefix string) string {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimSpace(s)) {
		if strings.TrimSpace(line) != "" {
			b.WriteString(prefix)
		}
		b.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	return b.String()
}

// pairFlag is a repeatable KEY=VALUE flag (--repo-map URL=PATH, --exec-for
// IMAGE=PATH, --cluster NAME=CLUSTER): the one parser of such pairs.
type pairFlag struct {
	m     map[string]string
	want  string // KEY=VALUE as the help names it
	empty bool   // VALUE may be empty (--env KEY=)
}

func newPairFlag(want string) *pairFlag { return &pairFlag{m: map[string]string{}, want: want} }

func (p *pairFlag) String() string {
	if p == nil {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p.m)) {
		parts = append(parts, k+"="+p.m[k])
	}
	return strings.Join(parts, ",")
}

func (p *pairFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" && !p.empty {
		return fmt.Errorf("want %s", p.want)
	}
	p.m[k] = v
	return nil
}
