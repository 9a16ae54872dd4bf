// Command apply-setters is the catalog's apply-setters main built on this
// repository's kyaml: builtinfn.ApplySetters under kyaml's command, as the
// catalog's main.go builds it. The equivalence tests hand it to kpt as an
// exec function; it is not built into bin/.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"

	"github.com/kptkit/kptkit/internal/builtinfn"
)

func main() {
	cmd := command.Build(builtinfn.ApplySetters, command.StandaloneEnabled, false)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
