package main

import "github.com/kptkit/kptkit/pkg/inject"

func init() { register(inject.Function) }
