// Package lifecycle reads Hub CLI's stack lifecycle for resolve-deps: the
// layers of a ResolveDeps' lifecycle (base stack first) and its parameters
// go in; a Policy comes out that says which packages are optional, which
// missing capabilities a package may do without, and which packages a
// parameter switches off.
package lifecycle

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
)

// Policy is the lifecycle in force.
type Policy struct {
	// Optional packages fail softly: a warning and a skip step.
	Optional []string
	// Mandatory packages, when any are listed, are the only ones that are
	// not optional.
	Mandatory []string
	Tuning    Tuning
	Params    map[string]any
}

// New merges the layers (base stack first) into a Policy. Bad tuning
// entries come back as errors with their field paths.
func New(layers []v1alpha1.Lifecycle, params map[string]any, single bool) (*Policy, []decode.Error) {
	p := &Policy{Params: params}
	var errs []decode.Error
	var entries [][]Entry
	for i, l := range layers {
		base := fmt.Sprintf("lifecycle[%d]", i)
		if single {
			base = "lifecycle"
		}
		p.Optional = appendNew(p.Optional, l.Optional...)
		p.Mandatory = appendNew(p.Mandatory, l.Mandatory...)
		var layer []Entry
		for j, s := range l.Requires.Optional {
			e, err := ParseEntry(s)
			if err != nil {
				errs = append(errs, decode.Error{Path: fmt.Sprintf("%s.requires.optional[%d]", base, j), Msg: err.Error()})
				continue
			}
			layer = append(layer, e)
		}
		entries = append(entries, layer)
	}
	p.Tuning = Merge(entries...)
	return p, errs
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// IsOptional reports whether pkg fails softly.
func (p *Policy) IsOptional(pkg string) bool {
	if p == nil {
		return false
	}
	if len(p.Mandatory) > 0 {
		return !slices.Contains(p.Mandatory, pkg)
	}
	return slices.Contains(p.Optional, pkg)
}

// Skippable reports whether pkg may end up skipped: it is optional, or
// the tuning names it or a capability it requires.
func (p *Policy) Skippable(pkg string, requires []string) bool {
	return p != nil && (p.IsOptional(pkg) || p.Tuning.Tunes(pkg, requires))
}

// Softened says why pkg may do without a capability: the tuning entry that
// makes it optional (`"dns:cert-manager"`), or `lifecycle.optional`; "" when
// it may not.
func (p *Policy) Softened(capability, pkg string) string {
	if p == nil {
		return ""
	}
	if e, ok := p.Tuning.CapabilityOptional(capability, pkg); ok {
		return strconv.Quote(e.String())
	}
	if p.IsOptional(pkg) {
		if len(p.Mandatory) > 0 {
			return "not in lifecycle.mandatory"
		}
		return "lifecycle.optional"
	}
	return ""
}

// SwitchedOff returns the first parameter that keeps pkg from being
// deployed, and how it reads, or "" when every condition holds.
func (p *Policy) SwitchedOff(pkg string) (string, string) {
	if p == nil {
		return "", ""
	}
	for _, path := range p.Tuning.Conditions(pkg) {
		v, known := Lookup(p.Params, path)
		if !known || !Truthy(v) {
			return path, Describe(v, known)
		}
	}
	return "", ""
}

// Lookup finds a parameter by its dotted path in a nested map. At each level
// the longest key that matches the start of the path wins, so a flat key
// "ingress.enabled" is found as well as a nested ingress: {enabled: ...}.
func Lookup(params map[string]any, path string) (any, bool) {
	parts := strings.Split(path, ".")
	var cur any = params
	for len(parts) > 0 {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		found := false
		for i := len(parts); i > 0; i-- {
			if v, ok := m[strings.Join(parts[:i], ".")]; ok {
				cur, parts, found = v, parts[i:], true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return cur, true
}

// Truthy reports whether a parameter value switches a package on: anything
// but false, "false", "", 0, "0" and null.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != "" && x != "false" && x != "0"
	case int:
		return x != 0
	case int64:
		return x != 0
	case uint64:
		return x != 0
	case float64:
		return x != 0
	}
	return true
}

// Describe renders a parameter value for messages: `false`, `""`, `unknown`.
func Describe(v any, known bool) string {
	if !known {
		return "unknown"
	}
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if x == "" {
			return `""`
		}
		return x // locked parameters are strings: quoting would say nothing
	default:
		return fmt.Sprint(x)
	}
}
