// Command inject-config is a KRM function that fills a kpt package's
// injection points from in-cluster objects, as Porch does for a
// PackageVariant's spec.injectors. See README.md.
package main

import (
	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/inject"
)

func main() { functions.Main(inject.Function) }
