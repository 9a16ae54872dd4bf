// Command fan-out-variants is a KRM function that expands a Porch
// PackageVariantSet into one PackageVariant per target. See README.md.
package main

import (
	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/fanout"
)

func main() { functions.Main(fanout.Function) }
