package params

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

// Output is an output of an installed package (its InstalledPackage's
// status.outputs): `${package:name}` in a parameter, or `${name}`.
type Output struct {
	Package, Name, Value string
}

// Resolved is one parameter a package declares, with its value in the
// package's scope.
type Resolved struct {
	v1alpha1.Parameter
	Value  string
	Source string
	// Secret is set when the value is secret: declared so by the package,
	// marked so by a layer, or made from a secret value.
	Secret bool
}

// Scope resolves the parameters a package declares, in its scope, as Hub
// expands a component's parameters: `name|package` from the stack first,
// then the outputs of the packages installed before it (given in install
// order; the nearest wins), then the plain `name`, then the package's own
// value and default; `empty: allow` lets it be empty. ${...} in a value
// reads the same scope, the package's earlier parameters, and
// `${package:output}`.
func (l *Locked) Scope(pkg string, declared []v1alpha1.Parameter, outputs []Output) ([]Resolved, []Problem) {
	var (
		out      []Resolved
		problems []Problem
		own      = map[string]Value{}
	)
	fail := func(msg string) { problems = append(problems, Problem{Msg: fmt.Sprintf("package %s: %s", pkg, msg)}) }
	var find func(ref string) (Value, bool, string)
	find = func(ref string) (Value, bool, string) {
		if comp, name, ok := strings.Cut(ref, ":"); ok {
			for _, o := range slices.Backward(outputs) {
				if o.Package == comp && o.Name == name {
					return Value{Value: o.Value, Source: "output " + ref}, true, ""
				}
			}
			return Value{}, false, fmt.Sprintf("${%s}: %s has no output %s (outputs come from the status of the InstalledPackages before it)", ref, comp, name)
		}
		if v, ok := l.lookup(ref, pkg, outputs); ok {
			if v.deferred {
				return expand(v, find, fail), true, ""
			}
			return v, true, ""
		}
		if v, ok := own[ref]; ok {
			return v, true, ""
		}
		return Value{}, false, fmt.Sprintf("${%s} names no parameter or output", ref)
	}
	for _, d := range declared {
		v, ok := l.lookup(d.Name, pkg, outputs)
		switch {
		case ok && v.failed:
			continue // reported where it is defined
		case ok:
		case d.Value != "":
			v, ok = Value{Value: string(d.Value), Source: "package " + pkg}, true
		case d.Default != "":
			v, ok = Value{Value: string(d.Default), Source: "default of package " + pkg}, true
		case d.Empty == v1alpha1.EmptyAllow:
			v, ok = Value{Source: "empty (allowed by package " + pkg + ")"}, true
		}
		if !ok {
			fail(fmt.Sprintf("parameter %s cannot be derived from the stack's parameters nor outputs: set it in a Parameters item (name: %s, component: %s) or give it a default", d.Name, d.Name, pkg))
			continue
		}
		if v.deferred || hasExpr(v.Value) {
			v = expand(v, find, fail)
			v.deferred = false
		}
		v.Secret = v.Secret || d.Secret
		own[d.Name] = v
		out = append(out, Resolved{Parameter: d, Value: v.Value, Source: v.Source, Secret: v.Secret})
	}
	return out, dedupe(problems)
}

// lookup finds a name in a package's scope: `name|package`, the outputs
// before it, then `name`. Empty values do not count.
func (l *Locked) lookup(name, pkg string, outputs []Output) (Value, bool) {
	if v, ok := l.values[name+"|"+pkg]; ok && (v.Value != "" || v.deferred || v.failed) {
		return v, true
	}
	for _, o := range slices.Backward(outputs) {
		if o.Name == name {
			return Value{Value: o.Value, Source: "output " + o.Package + ":" + o.Name}, true
		}
	}
	if v, ok := l.values[name]; ok && (v.Value != "" || v.deferred || v.failed) {
		return v, true
	}
	return Value{}, false
}
