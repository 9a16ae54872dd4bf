package krmfn

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Kind is an apiVersion and kind that a function accepts as functionConfig.
type Kind = v1alpha1.TypeMeta

// ConfigMap is the core ConfigMap, the functionConfig of `kpt fn eval -- k=v`.
var ConfigMap = v1alpha1.TypeConfigMap

// Config is a ResourceList's functionConfig.
type Config struct {
	Node   *yaml.RNode
	Header resourcelist.Header
}

// ConfigOf returns the functionConfig, or nil when there is none: none was
// given, or it is the empty ConfigMap named function-input that `kpt fn eval`
// sends when given no config.
func ConfigOf(rl *resourcelist.ResourceList) *Config {
	n := rl.FunctionConfig()
	if n == nil {
		return nil
	}
	c := &Config{Node: n, Header: resourcelist.HeaderOf(n)}
	if c.Header.Is(ConfigMap.APIVersion, ConfigMap.Kind) && c.Header.Name == "function-input" {
		if d := n.Field("data"); d == nil || yaml.IsMissingOrNull(d.Value) || len(d.Value.YNode().Content) == 0 {
			return nil
		}
	}
	return c
}

// Is reports whether the config is of kind k.
func (c *Config) Is(k Kind) bool { return c.Header.Is(k.APIVersion, k.Kind) }

// Match returns which accepted kind the config is; when it is none of them,
// it returns false and an error result that names the accepted kinds.
func (c *Config) Match(accepted ...Kind) (Kind, bool, result.Result) {
	for _, k := range accepted {
		if c.Is(k) {
			return k, true, result.Result{}
		}
	}
	names := make([]string, len(accepted))
	for i, k := range accepted {
		names[i] = k.Describe()
	}
	got := c.Header.Kind
	if got == "" {
		got = "(none)"
	}
	return Kind{}, false, c.Errorf("kind", "functionConfig kind %s (apiVersion %q) is not supported: accepted kinds are %s",
		got, c.Header.APIVersion, strings.Join(names, ", "))
}

// Decode decodes the config into out and returns a result for every problem.
// Our own kinds are decoded with KnownFields; others' kinds without.
func (c *Config) Decode(out any, opts decode.Options) []result.Result {
	var rs []result.Result
	for _, e := range decode.Into(c.Node.YNode(), out, opts, "") {
		rs = append(rs, c.Errorf(e.Path, "%s: %s", c, e))
	}
	return rs
}

// Errorf returns an error result about a field of the config.
func (c *Config) Errorf(field, format string, args ...any) result.Result {
	return c.Header.Attach(result.Errorf(format, args...).WithField(field))
}

// String names the config for messages: `functionConfig PackageVariant/my-pv`.
func (c *Config) String() string {
	s := "functionConfig " + c.Header.Kind
	if c.Header.Name != "" {
		s += "/" + c.Header.Name
	}
	if c.Header.Path != "" {
		s += fmt.Sprintf(" (%s)", c.Header.Path)
	}
	return s
}
