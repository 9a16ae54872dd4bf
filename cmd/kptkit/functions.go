package main

import (
	"github.com/kptkit/kptkit/pkg/pipeline"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
)

func init() {
	register(pkgcontext.Function)
	register(pipeline.Function)
}
