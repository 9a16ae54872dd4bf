// Package functions holds the function binaries, one folder each, and their
// READMEs, which are also their --help texts. It is the edge where a function
// meets the process: arguments, stdin, stdout, stderr, clock, environment.
package functions

import (
	"embed"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/kptkit/kptkit/internal/version"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

//go:embed */README.md */metadata.yaml
var files embed.FS

// Usage returns the --help text of the named function: its README.
func Usage(name string) string {
	b, err := files.ReadFile(name + "/README.md")
	if err != nil {
		return name + ": a kptkit KRM function (no README found)\n"
	}
	return krmfn.Usage(b)
}

// Metadata returns the named function's metadata.yaml (the kpt function
// catalog's format; image.ParseMetadata reads it), nil when it has none.
func Metadata(name string) []byte {
	b, _ := files.ReadFile(name + "/metadata.yaml")
	return b
}

// Env is the real world: the wall clock and the process environment.
func Env() krmfn.Env {
	return krmfn.Env{Now: time.Now, Getenv: os.Getenv}
}

// Main runs f as the process and exits with its exit code.
func Main(f krmfn.Function) {
	os.Exit(Run(f, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Run runs f with the given arguments and streams, in the real world's clock
// and environment, and returns the exit code. --version prints the module
// version and VCS revision the binary was built from.
func Run(f krmfn.Function, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if slices.Contains(args, "--version") {
		fmt.Fprintf(stdout, "%s %s\n", f.Name, version.Get())
		return 0
	}
	return krmfn.Main(f, Usage(f.Name), args, stdin, stdout, stderr, Env())
}
