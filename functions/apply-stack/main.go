// Command apply-stack is a KRM function that records a package's resources
// in a pkger-style Stack, so that applying the package is idempotent. See
// README.md.
package main

import (
	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/stack"
)

func main() { functions.Main(stack.Function) }
