package main

import (
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/fanout"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/pipeline"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/stack"
)

// registry lists the functions kptkit runs, in the contract's order (help
// shows them so).
var registry = []krmfn.Function{stack.Function, inject.Function, pkgcontext.Function, pipeline.Function, fanout.Function, deps.Function}
