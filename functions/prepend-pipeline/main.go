// Command prepend-pipeline is a KRM function that puts an owner's functions
// at the front of a kpt package's Kptfile pipeline. See README.md.
package main

import (
	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/pipeline"
)

func main() { functions.Main(pipeline.Function) }
