package v1alpha1

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/decode"
)

// SetPackageContext sets and removes keys of the package context ConfigMap
// (kptfile.kpt.dev in package-context.yaml).
type SetPackageContext struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta `yaml:"metadata,omitempty"`
	// Data are the keys to set and their values: ConfigMap keys
	// ([-._a-zA-Z0-9]+), not the reserved name and package-path.
	Data map[string]string `yaml:"data,omitempty"`
	// RemoveKeys are the keys to remove (removal wins over Data).
	RemoveKeys []string `yaml:"removeKeys,omitempty"`
	// Create makes the function create the ConfigMap when the package has none.
	Create bool `yaml:"create,omitempty"`
}

// Default fills in defaults (there are none to fill).
func (c *SetPackageContext) Default() {}

// Validate refuses the reserved keys, naming the config's own fields.
func (c *SetPackageContext) Validate() []decode.Error {
	return ValidateContextKeys(c.Data, c.RemoveKeys, "data", "removeKeys")
}

// ReservedContextKeys are the package context keys kpt and Porch own.
var ReservedContextKeys = []string{"name", "package-path"}

// ValidateContextKeys refuses reserved keys in data and removeKeys, with
// Porch's texts: `<dataField>: Invalid value: {"name":"x"}: must not contain the key "name"`.
func ValidateContextKeys(data map[string]string, removeKeys []string, dataField, removeField string) []decode.Error {
	var errs []decode.Error
	for _, key := range ReservedContextKeys {
		detail := func() string { return fmt.Sprintf("must not contain the key %q", key) }
		if _, ok := data[key]; ok {
			errs = append(errs, decode.Invalid(dataField, data, detail()))
		}
		for _, k := range removeKeys {
			if k == key {
				errs = append(errs, decode.Invalid(removeField, removeKeys, detail()))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if !IsConfigMapKey(k) {
			errs = append(errs, decode.Invalid(fmt.Sprintf("%s[%s]", dataField, k), k, ConfigMapKeyRule))
		}
	}
	return errs
}

// ConfigMapKeyRule is Kubernetes' text for a key a ConfigMap refuses.
const ConfigMapKeyRule = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' " +
	"(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

// IsConfigMapKey reports whether Kubernetes takes k as a ConfigMap's data
// key: 1 to 253 of [-._a-zA-Z0-9], and not "." or "..".
func IsConfigMapKey(k string) bool {
	if k == "" || len(k) > 253 || k == "." || k == ".." {
		return false
	}
	for _, c := range k {
		if !(c == '-' || c == '.' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// PrependPipeline puts functions at the front of the root Kptfile's pipeline
// on behalf of an owner, replacing the functions that owner put there before.
type PrependPipeline struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta        `yaml:"metadata,omitempty"`
	Owner    string            `yaml:"owner,omitempty"`
	Pipeline *kptfile.Pipeline `yaml:"pipeline,omitempty"`
}

// Default fills in defaults (there are none to fill).
func (c *PrependPipeline) Default() {}

// Validate checks the owner's name.
func (c *PrependPipeline) Validate() []decode.Error {
	return ValidateOwner(c.Owner, "owner")
}

// ValidateOwner checks the name under which functions are added: it must be
// set and must not contain ".", which would break the four-part function
// names (Porch would duplicate such functions on every run).
func ValidateOwner(owner, field string) []decode.Error {
	switch {
	case owner == "":
		return []decode.Error{{Path: field, Msg: "is required: it names the functions this owner adds"}}
	case slices.Contains([]byte(owner), '.'):
		return []decode.Error{{Path: field, Msg: fmt.Sprintf("owner name %q must not contain \".\"", owner)}}
	}
	return nil
}
