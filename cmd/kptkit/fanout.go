package main

import "github.com/kptkit/kptkit/pkg/fanout"

func init() { register(fanout.Function) }
