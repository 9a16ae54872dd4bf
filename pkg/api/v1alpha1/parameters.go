package v1alpha1

import (
	"fmt"
	"strings"

	"github.com/kptkit/kptkit/pkg/decode"
)

// Kinds and values of Hub's parameters.
const (
	KindParameters = "Parameters"
	// ParameterUser is a parameter the user sets; it wins over a tech one.
	ParameterUser = "user"
	// ParameterTech is a parameter a package sets for itself.
	ParameterTech = "tech"
	// EmptyAllow lets a parameter end up empty.
	EmptyAllow = "allow"
)

// TypeParameters is the type of a Parameters item.
var TypeParameters = TypeMeta{APIVersion: APIVersion, Kind: KindParameters}

// Parameters is a layer of Hub's parameters: the parameters a package
// declares (as an item of the package), or a stack layer's values (as an
// item of the package resolve-deps runs on).
type Parameters struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta     `yaml:"metadata,omitempty"`
	Spec     ParametersSpec `yaml:"spec,omitempty"`
}

// ParametersSpec lists the parameters.
type ParametersSpec struct {
	Parameters []Parameter `yaml:"parameters,omitempty"`
}

// Parameter is one of Hub's parameters: a dotted name, qualified for one
// component (package) or not, with its value or how to get it.
type Parameter struct {
	Name      string `yaml:"name"`
	Component string `yaml:"component,omitempty"`
	// Kind is `user` or `tech`: a user parameter wins over a tech one when
	// layers merge, and only a package's user parameters reach the stack.
	Kind    string           `yaml:"kind,omitempty"`
	Value   decode.AnyScalar `yaml:"value,omitempty"`
	Default decode.AnyScalar `yaml:"default,omitempty"`
	// FromEnv names the environment variable the value is read from.
	FromEnv string `yaml:"fromEnv,omitempty"`
	// Env names the environment variable Hub hands the value to a
	// component in; kept for Hub's stacks, not used to read.
	Env string `yaml:"env,omitempty"`
	// Empty `allow` lets the value be empty.
	Empty string `yaml:"empty,omitempty"`
	Brief string `yaml:"brief,omitempty"`
	// Secret keeps the value out of everything written into git: package
	// contexts and plans.
	Secret bool `yaml:"secret,omitempty"`
}

// QName is the parameter's qualified name: `name|component`, or the name.
func (p Parameter) QName() string {
	if p.Component != "" {
		return p.Name + "|" + p.Component
	}
	return p.Name
}

// Validate checks each parameter's name, kind and empty, naming fields from
// base (`spec.parameters`).
func (s ParametersSpec) Validate(base string) []decode.Error {
	var errs []decode.Error
	for i, p := range s.Parameters {
		errs = append(errs, p.Validate(fmt.Sprintf("%s[%d]", base, i))...)
	}
	return errs
}

// Validate checks a parameter: a name of dot-separated parts (letters,
// digits, '-', '_'), a known kind and empty.
func (p Parameter) Validate(field string) []decode.Error {
	var errs []decode.Error
	if err := checkParamName(p.Name); err != nil {
		errs = append(errs, decode.Error{Path: field + ".name", Msg: err.Error()})
	}
	if p.Kind != "" && p.Kind != ParameterUser && p.Kind != ParameterTech {
		errs = append(errs, decode.Error{Path: field + ".kind", Msg: fmt.Sprintf("%q is not a kind of parameter: use user or tech", p.Kind)})
	}
	if p.Empty != "" && p.Empty != EmptyAllow {
		errs = append(errs, decode.Error{Path: field + ".empty", Msg: fmt.Sprintf("%q: the only value is allow", p.Empty)})
	}
	if strings.ContainsAny(p.Component, "|:${} ") {
		errs = append(errs, decode.Error{Path: field + ".component", Msg: fmt.Sprintf("%q must name a package", p.Component)})
	}
	return errs
}

// checkParamName accepts dotted names such as `dns.domain` or `db-1.port`.
func checkParamName(name string) error {
	if name == "" {
		return fmt.Errorf("is required")
	}
	for _, part := range strings.Split(name, ".") {
		if part == "" {
			return fmt.Errorf("%q has an empty part: names are dot-separated, as in dns.domain", name)
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return fmt.Errorf("%q: a name holds letters, digits, '-', '_' and '.', not %q", name, r)
			}
		}
	}
	return nil
}
