// Command set-package-context is a KRM function that sets and removes keys of
// a kpt package's context (package-context.yaml). See README.md.
package main

import (
	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
)

func main() { functions.Main(pkgcontext.Function) }
