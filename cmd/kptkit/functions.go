package main

import (
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/pipeline"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/stack"
)

// The functions, in the contract's order.
func init() {
	register(stack.Function)
	register(inject.Function)
	register(pkgcontext.Function)
	register(pipeline.Function)
	register(fanout.Function)
	register(deps.Function)
}
