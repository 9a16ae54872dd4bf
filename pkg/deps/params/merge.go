package params

import (
	"maps"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

// Layer is a set of parameters from one place.
type Layer struct {
	// Source names the layer in sources and messages: `Parameters/base`,
	// `ResolveDeps.parameters`.
	Source string
	// Package is set for a package's own parameters: only its user
	// parameters reach the stack, qualified with the package (Hub's
	// component parameters).
	Package string
	Params  []v1alpha1.Parameter
}

// Loc is where a parameter was defined: its layer and its index there.
type Loc struct{ Layer, Index int }

// Param is a merged parameter: Hub's fields, where its value and default
// came from, and where it was last defined.
type Param struct {
	v1alpha1.Parameter
	valueFrom   string
	defaultFrom string
	At          Loc
}

// Set is the merged parameters of every layer, by qualified name.
type Set struct {
	params map[string]*Param
}

// Merge merges the layers in order with Hub's rules: a later definition
// overwrites value, default, fromEnv, env, brief and empty; `user` wins
// over `tech`; fromEnv makes a parameter `user`; an unqualified parameter
// also merges into every earlier qualified one of its name; secret, once
// set, stays. A package's parameters take part only when they are `user`,
// qualified with the package.
func Merge(layers []Layer) *Set {
	s := &Set{params: map[string]*Param{}}
	for li, l := range layers {
		for pi, p := range l.Params {
			if p.FromEnv != "" && p.Kind == "" {
				p.Kind = v1alpha1.ParameterUser
			}
			if l.Package != "" {
				if p.Kind != v1alpha1.ParameterUser {
					continue
				}
				p.Component = l.Package
			}
			s.merge(p, l.Source, Loc{li, pi})
		}
	}
	return s
}

func (s *Set) merge(p v1alpha1.Parameter, source string, at Loc) {
	if p.Component != "" {
		s.mergeInto(p.QName(), p, source, at)
		return
	}
	for _, q := range slices.Sorted(maps.Keys(s.params)) {
		if name, _, ok := strings.Cut(q, "|"); ok && name == p.Name {
			s.mergeInto(q, p, source, at)
		}
	}
	s.mergeInto(p.Name, p, source, at)
}

// mergeInto merges over into the parameter at q (creating it).
func (s *Set) mergeInto(q string, over v1alpha1.Parameter, source string, at Loc) {
	base, ok := s.params[q]
	if !ok {
		np := &Param{Parameter: over, At: at}
		if over.Value != "" {
			np.valueFrom = source
		}
		if over.Default != "" {
			np.defaultFrom = source
		}
		s.params[q] = np
		return
	}
	b := &base.Parameter
	if over.Kind != "" && (b.Kind == "" || b.Kind == v1alpha1.ParameterTech && over.Kind == v1alpha1.ParameterUser) {
		b.Kind = over.Kind
	}
	for _, f := range []struct{ dst, src *string }{{&b.Brief, &over.Brief}, {&b.Env, &over.Env}, {&b.FromEnv, &over.FromEnv}, {&b.Empty, &over.Empty}} {
		if *f.src != "" {
			*f.dst = *f.src
		}
	}
	if over.Default != "" {
		b.Default, base.defaultFrom = over.Default, source
	}
	if over.Value != "" {
		b.Value, base.valueFrom = over.Value, source
	}
	b.Secret = b.Secret || over.Secret
	base.At = at
}

// Names returns the qualified names of the merged parameters, sorted.
func (s *Set) Names() []string { return slices.Sorted(maps.Keys(s.params)) }
