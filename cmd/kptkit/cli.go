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

// command is one of kptkit's commands: either it runs (run), or it has
// subcommands (subs), each a command (kptkit stack show). All of them
// speak one way: `--help` (or `help`) prints the usage on stdout and exits
// 0, at every level, with the flags of a command that runs; a mistake in
// the command line is a usageError, printed naming the command and where
// its help is, exit 2; any other error is printed `kptkit <command>:
// <error>`, exit 1.
//
// A command is declared in its own file, as a value, and listed in
// commands (main.go):
//
//	var fooCommand = &command{
//		name:     "foo",
//		summary:  "do foo to a package (foo --help)", // for kptkit help
//		synopsis: "[flags] PKG",                     // after `kptkit foo` in its usage
//		help:     `What foo does, a paragraph or more.`,
//		run:      runFoo,
//	}
//
//	func runFoo(c *call, args []string) error {
//		fs := c.flags()
//		n := fs.Int("n", 1, "`N` times")
//		if err := c.parse(fs, args, 1); err != nil {
//			return err // --help printed (exit 0), or a usage error
//		}
//		if *n < 1 {
//			return usageErrorf("--n is %d: it takes a positive number", *n) // exit 2
//		}
//		return doFoo(fs.Arg(0), *n, c.stdout) // an error: exit 1
//	}
//
// A command returns exitCode(n) to end with a code when it has printed
// what went wrong itself.
//
// A command with subcommands has subs instead of synopsis and run; its
// help says what it is for.
type command struct {
	name     string
	summary  string // one line, for kptkit help (a command of kptkit's own)
	synopsis string // what follows the command's path in its usage
	help     string // what it does, a paragraph or more
	run      func(c *call, args []string) error
	subs     []*command
}

// call is one run of a command.
type call struct {
	path           string // "kptkit stack show", for messages
	usage          string // its usage, printed by --help before its flags
	stdout, stderr io.Writer
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ error }

func usageErrorf(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode ends a command with a code and no message (it has printed
// what went wrong, or --check found changes).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// errHelped: the usage was printed for --help.
var errHelped = errors.New("help printed")

// errNoArguments: a command that needs a subcommand was given none; its
// usage goes to stderr (exit 2).
var errNoArguments = errors.New("no arguments")

// main runs the command, named path, with its arguments (after its
// name), prints what went wrong and returns the exit code.
func (cmd *command) main(path string, args []string, stdout, stderr io.Writer) int {
	c := &call{path: path, usage: cmd.usage(path), stdout: stdout, stderr: stderr}
	if cmd.run != nil {
		return c.exit(cmd.run(c, args))
	}
	if len(args) > 0 && isHelp(args[0]) {
		if len(args) > 1 && !isHelp(args[1]) { // kptkit stack help show
			return cmd.main(path, []string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, c.usage)
		return 0
	}
	if len(args) == 0 {
		return c.exit(errNoArguments)
	}
	sub := find(cmd.subs, args[0])
	if sub == nil {
		return c.exit(usageErrorf("unknown %s %q (the subcommands are %s)", flagOr(args[0], "subcommand"), args[0], cmd.names()))
	}
	return sub.main(path+" "+sub.name, args[1:], stdout, stderr)
}

// flagOr names what an unknown argument was taken for: a flag, or what.
func flagOr(arg, what string) string {
	if strings.HasPrefix(arg, "-") {
		return "flag"
	}
	return what
}

// find returns the command of that name, nil for none.
func find(cmds []*command, name string) *command {
	for _, c := range cmds {
		if c.name == name {
			return c
		}
	}
	return nil
}

// exit turns a command's error into its exit code, printing it.
func (c *call) exit(err error) int {
	var (
		usage usageError
		code  exitCode
	)
	switch {
	case err == nil, errors.Is(err, errHelped):
		return 0
	case errors.Is(err, errNoArguments):
		fmt.Fprint(c.stderr, c.usage)
		return 2
	case errors.As(err, &usage):
		help := c.path + " --help"
		if c.path == "kptkit" {
			help = "kptkit help" // kptkit's own usage lists the functions
		}
		fmt.Fprintf(c.stderr, "%s: %v\nRun '%s' for usage.\n", c.path, err, help)
		return 2
	case errors.As(err, &code):
		return int(code)
	}
	fmt.Fprintf(c.stderr, "%s: %v\n", c.path, err)
	return 1
}

func (cmd *command) names() string {
	var names []string
	for _, s := range cmd.subs {
		names = append(names, s.name)
	}
	if len(names) == 1 {
		return "just " + names[0]
	}
	return strings.Join(names, ", ")
}

// usage is the command's help: for a command that runs, its synopsis and
// help (--help adds its flags); for one with subcommands, each with its
// synopsis and help.
func (cmd *command) usage(path string) string {
	if cmd.run != nil {
		return fmt.Sprintf("Usage: %s\n\n%s", strings.TrimSpace(path+" "+cmd.synopsis), indent(cmd.help, ""))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s <subcommand> [flags] [arguments]\n\n", path)
	if cmd.help != "" {
		b.WriteString(strings.TrimSpace(cmd.help) + "\n\n")
	}
	b.WriteString("Subcommands:\n")
	for _, s := range cmd.subs {
		fmt.Fprintf(&b, "  %s %s\n%s", s.name, s.synopsis, indent(s.help, "      "))
	}
	fmt.Fprintf(&b, "\nRun '%s <subcommand> --help' for its flags.\n", path)
	return b.String()
}

// flags returns a flag set for the command that prints nothing itself.
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
		if hasDefault(f) && !strings.Contains(usage, "(default") { // a usage that says its default is not told it twice
			fmt.Fprintf(&b, "      (default %s)\n", f.DefValue)
		}
	})
	if b.Len() == 0 {
		return
	}
	fmt.Fprint(w, "\nFlags:\n"+b.String())
}

// hasDefault reports whether the flag's default is worth telling: not
// empty, false or zero.
func hasDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return false
	}
	return true
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
