// Command identity is a KRM function that changes nothing: it reads a
// ResourceList and writes it back. It is the baseline the function binaries
// are measured against (functions/bench_test.go): the cost of a process that
// reads and writes the list and does nothing else.
package main

import (
	"github.com/kptkit/kptkit/functions"
	"github.com/kptkit/kptkit/pkg/krmfn"
)

func main() { functions.Main(krmfn.Identity) }
