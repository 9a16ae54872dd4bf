package main

import (
	"os"

	"github.com/kptkit/kptkit/internal/bounded"
)

// This test binary is also kptkit's child (starlark, Jsonnet, the exec
// trampoline): run hands it to bounded.Main before anything else, and
// needs nothing the package's other init functions register.
func init() {
	if len(os.Args) > 1 && os.Args[1] == bounded.Arg {
		os.Exit(run(append([]string{"kptkit"}, os.Args[1:]...), os.Stdin, os.Stdout, os.Stderr))
	}
}
