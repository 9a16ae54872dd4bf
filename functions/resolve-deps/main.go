// Command resolve-deps is a KRM function that resolves a kpt package's
// dependencies into an InstallPlan and Porch PackageVariants. See README.md.
package main

import (
	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/deps"
)

func main() { functions.Main(deps.Function) }
