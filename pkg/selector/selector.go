// Package selector matches Kubernetes label selectors: matchLabels and
// matchExpressions go in, checked as Kubernetes checks them (every problem at
// once, with its field path); a Selector that tells whether a set of labels
// matches comes out.
package selector

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/decode"
)

// Operators of matchExpressions requirements.
const (
	In           = "In"
	NotIn        = "NotIn"
	Exists       = "Exists"
	DoesNotExist = "DoesNotExist"
)

// Requirement is one matchExpressions entry.
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// Selector is a checked label selector. The zero Selector matches everything,
// as an empty Kubernetes label selector does.
type Selector struct {
	reqs []Requirement // matchLabels first (as In with one value), sorted by key
}

// New checks a selector and returns it, or the problems found, each with its
// path below the selector (`matchExpressions[0].operator`).
func New(matchLabels map[string]string, exprs []Requirement) (Selector, []decode.Error) {
	var (
		s    Selector
		errs []decode.Error
	)
	for _, k := range slices.Sorted(maps.Keys(matchLabels)) {
		path := "matchLabels." + k
		errs = append(errs, checkKey(path, k)...)
		errs = append(errs, checkValue(path, matchLabels[k])...)
		s.reqs = append(s.reqs, Requirement{Key: k, Operator: In, Values: []string{matchLabels[k]}})
	}
	for i, r := range exprs {
		path := fmt.Sprintf("matchExpressions[%d]", i)
		errs = append(errs, checkRequirement(path, r)...)
		s.reqs = append(s.reqs, Requirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)})
	}
	if len(errs) > 0 {
		return Selector{}, errs
	}
	return s, nil
}

func checkRequirement(path string, r Requirement) []decode.Error {
	errs := checkKey(path+".key", r.Key)
	switch r.Operator {
	case In, NotIn:
		if len(r.Values) == 0 {
			errs = append(errs, decode.Invalid(path+".values", []string{}, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case Exists, DoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, decode.Invalid(path+".values", r.Values, "values set must be empty for exists and does not exist"))
		}
	default:
		errs = append(errs, decode.Error{Path: path + ".operator",
			Msg: fmt.Sprintf("%q is not a valid label selector operator (want In, NotIn, Exists or DoesNotExist)", r.Operator)})
	}
	for j, v := range r.Values {
		errs = append(errs, checkValue(fmt.Sprintf("%s.values[%d]", path, j), v)...)
	}
	return errs
}

// Matches reports whether labels satisfy every requirement.
func (s Selector) Matches(labels map[string]string) bool {
	for _, r := range s.reqs {
		v, ok := labels[r.Key]
		switch r.Operator {
		case In:
			if !ok || !slices.Contains(r.Values, v) {
				return false
			}
		case NotIn:
			if ok && slices.Contains(r.Values, v) {
				return false
			}
		case Exists:
			if !ok {
				return false
			}
		case DoesNotExist:
			if ok {
				return false
			}
		}
	}
	return true
}

// String renders the selector as kubectl's -l flag reads it:
// `env=prod,tier in (a,b),!legacy`; "" matches everything.
func (s Selector) String() string {
	parts := make([]string, 0, len(s.reqs))
	for _, r := range s.reqs {
		switch {
		case r.Operator == In && len(r.Values) == 1:
			parts = append(parts, r.Key+"="+r.Values[0])
		case r.Operator == In:
			parts = append(parts, r.Key+" in ("+strings.Join(r.Values, ",")+")")
		case r.Operator == NotIn:
			parts = append(parts, r.Key+" notin ("+strings.Join(r.Values, ",")+")")
		case r.Operator == Exists:
			parts = append(parts, r.Key)
		default:
			parts = append(parts, "!"+r.Key)
		}
	}
	return strings.Join(parts, ",")
}
