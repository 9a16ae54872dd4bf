package params

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

// Problem is a mistake in the parameters: the definition it is about
// (nil when it is about a package's declaration) and what is wrong.
type Problem struct {
	At  *Loc
	Msg string
}

// Value is a locked value: the value, where it came from, whether it is
// secret. Deferred values hold ${package:output} references that only a
// package's scope can fill.
type Value struct {
	Value    string
	Source   string
	Secret   bool
	deferred bool
	failed   bool // locking it was a problem, reported once
}

// Locked is the stack's parameters with their values.
type Locked struct {
	values map[string]Value
}

// Lock gives every merged parameter its value: the environment variable
// fromEnv names when it is set (getenv may be nil: every variable is
// unset), else its value, else its default; then ${name} expressions are evaluated (a
// parameter may reference any other; a cycle is an error naming it);
// then a parameter left empty is an error unless `empty: allow`.
func (s *Set) Lock(getenv func(string) string) (*Locked, []Problem) {
	l := &Locked{values: map[string]Value{}}
	raw := map[string]Value{}
	for _, q := range s.Names() {
		raw[q] = initial(s.params[q], getenv)
	}
	var problems []Problem
	inCycle, bad := map[string]bool{}, map[string]bool{}
	state := map[string]int{} // 1: being evaluated, 2: done
	var eval func(q string, path []string) Value
	eval = func(q string, path []string) Value {
		switch state[q] {
		case 2:
			return l.values[q]
		case 1:
			at := s.params[q].At
			cycle := append(slices.Clone(path[slices.Index(path, q):]), q)
			for _, c := range cycle {
				inCycle[c] = true
			}
			problems = append(problems, Problem{At: &at, Msg: "parameter cycle: " + strings.Join(cycle, " -> ")})
			return Value{}
		}
		state[q] = 1
		v := raw[q]
		if hasExpr(v.Value) {
			p := s.params[q]
			v = expand(v, func(ref string) (Value, bool, string) {
				if strings.Contains(ref, ":") {
					return Value{}, false, "" // an output: the package's scope fills it
				}
				for _, cand := range candidates(ref, p.Component) {
					if _, ok := raw[cand]; ok {
						return eval(cand, append(path, q)), true, ""
					}
				}
				return Value{}, false, fmt.Sprintf("parameter %s: ${%s} names no parameter", q, ref)
			}, func(msg string) {
				at := p.At
				problems = append(problems, Problem{At: &at, Msg: msg})
				bad[q] = true
			})
		}
		state[q] = 2
		l.values[q] = v
		return v
	}
	for _, q := range s.Names() {
		eval(q, nil)
	}
	for _, q := range s.Names() {
		v := l.values[q]
		if v.Value == "" && !v.deferred && !inCycle[q] && s.params[q].Empty != v1alpha1.EmptyAllow {
			at := s.params[q].At
			problems = append(problems, Problem{At: &at, Msg: emptyText(q, s.params[q])})
			v.failed = true
		}
		v.failed = v.failed || inCycle[q] || bad[q]
		l.values[q] = v
	}
	return l, dedupe(problems)
}

// initial is a parameter's value before expressions: its value, the
// environment variable it names, or its default.
func initial(p *Param, getenv func(string) string) Value {
	switch {
	case p.FromEnv != "" && getenv != nil && getenv(p.FromEnv) != "":
		return Value{Value: getenv(p.FromEnv), Source: "environment variable " + p.FromEnv, Secret: p.Secret}
	case p.Value != "":
		return Value{Value: string(p.Value), Source: p.valueFrom, Secret: p.Secret}
	case p.Default != "":
		return Value{Value: string(p.Default), Source: "default of " + p.defaultFrom, Secret: p.Secret}
	}
	return Value{Secret: p.Secret}
}

func emptyText(q string, p *Param) string {
	if p.FromEnv != "" {
		return fmt.Sprintf("parameter %s: environment variable %s (fromEnv) is unset and the parameter has no default: set the variable, give a default, or mark it empty: allow", q, p.FromEnv)
	}
	return fmt.Sprintf("parameter %s is empty: give it a value, a default or fromEnv, or mark it empty: allow", q)
}

// candidates are the names a reference finds, most specific first: within
// a component's scope `ref|component`, then `ref`.
func candidates(ref, component string) []string {
	if component != "" && !strings.Contains(ref, "|") {
		return []string{ref + "|" + component, ref}
	}
	return []string{ref}
}

func hasExpr(s string) bool { return strings.Contains(s, "${") || strings.Contains(s, "#{") }

// expand replaces each ${ref} in v by what find gives; a reference find
// leaves open (not found, no message) keeps the value deferred. A value
// referencing a secret is secret.
func expand(v Value, find func(ref string) (Value, bool, string), fail func(string)) Value {
	var (
		b    strings.Builder
		from []string
	)
	s := v.Value
	out := v
	// kept is v as it came, not deferred: what a failed expression gives
	kept := Value{Value: v.Value, Source: v.Source, Secret: v.Secret}
	for {
		i := strings.Index(s, "${")
		j := strings.Index(s, "#{")
		if j >= 0 && (i < 0 || j < i) {
			fail(fmt.Sprintf("%q: #{...} (Hub's CEL expressions) is not supported: use ${name}", v.Value))
			return kept
		}
		if i < 0 {
			b.WriteString(s)
			break
		}
		end := strings.Index(s[i:], "}")
		if end < 0 {
			fail(fmt.Sprintf("%q: ${ is not closed", v.Value))
			return kept
		}
		ref := strings.TrimSpace(s[i+2 : i+end])
		b.WriteString(s[:i])
		if ref == "" {
			fail(fmt.Sprintf("%q: ${} names nothing", v.Value))
			return kept
		}
		got, ok, msg := find(ref)
		switch {
		case ok && got.deferred:
			out.deferred = true
			b.WriteString(s[i : i+end+1])
		case ok:
			b.WriteString(got.Value)
			out.Secret = out.Secret || got.Secret
			src, _, _ := strings.Cut(got.Source, ", with ")
			if f := "${" + ref + "} from " + src; src != "" && !slices.Contains(from, f) {
				from = append(from, f)
			}
		case msg != "":
			fail(msg)
			return kept
		default:
			out.deferred = true
			b.WriteString(s[i : i+end+1])
		}
		s = s[i+end+1:]
	}
	out.Value = b.String()
	if len(from) > 0 {
		out.Source = strings.TrimPrefix(v.Source+", with ", ", with ") + strings.Join(from, ", ")
	}
	return out
}

func dedupe(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if !slices.ContainsFunc(out, func(o Problem) bool { return o.Msg == p.Msg }) {
			out = append(out, p)
		}
	}
	return out
}

// Get returns the locked value of a parameter by qualified name.
func (l *Locked) Get(q string) (Value, bool) {
	v, ok := l.values[q]
	return v, ok
}

// Conditions returns the unqualified parameters' values, for conditional
// requirements (`param.path:package`), by dotted name.
func (l *Locked) Conditions() map[string]any {
	out := map[string]any{}
	for q, v := range l.values {
		if !strings.Contains(q, "|") && !v.deferred {
			out[q] = v.Value
		}
	}
	return out
}
