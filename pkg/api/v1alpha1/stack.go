package v1alpha1

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/decode"
)

// ApplyStack is apply-stack's functionConfig: which Stack records the
// package, and the clock to stamp it with.
type ApplyStack struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta `yaml:"metadata,omitempty"`
	// Stack is the name of the Stack item to use (or create). Empty: the
	// package's only Stack, or a new one named after the package.
	Stack string `yaml:"stack,omitempty"`
	// Now is the time (RFC 3339) to record. Empty: SOURCE_DATE_EPOCH, else
	// the wall clock. Any scalar is read: an unquoted time is a YAML timestamp.
	Now decode.AnyScalar `yaml:"now,omitempty"`
	// EnvRefs are the values of the package's environment references
	// (`envRef: {key, default}`), by key: a value here wins over the
	// default, which wins over `env-<key>`.
	EnvRefs map[string]decode.AnyScalar `yaml:"envRefs,omitempty"`
	// Secrets names the secrets (`secretRef: {key}`) known to be provided
	// where the package is applied: names only, never values.
	Secrets []string `yaml:"secrets,omitempty"`
	// DryRun plans the apply and reports it without changing the record.
	DryRun bool `yaml:"dryRun,omitempty"`
}

// Default fills in defaults (there are none to fill).
func (c *ApplyStack) Default() {}

// Validate checks the stack name and the clock.
func (c *ApplyStack) Validate() []decode.Error {
	var errs []decode.Error
	if c.Stack != "" && strings.ContainsAny(c.Stack, "/ \t\r\n") {
		errs = append(errs, decode.Error{Path: "stack", Msg: fmt.Sprintf("stack name %q must not contain \"/\" or white space", c.Stack)})
	}
	if c.Now != "" {
		if _, err := time.Parse(time.RFC3339, string(c.Now)); err != nil {
			errs = append(errs, decode.Error{Path: "now", Msg: fmt.Sprintf("%q is not an RFC 3339 time (e.g. 2026-01-02T03:04:05Z)", c.Now)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.EnvRefs)) {
		if strings.TrimSpace(k) == "" {
			errs = append(errs, decode.Error{Path: "envRefs", Msg: "an environment reference's key must not be empty"})
		}
	}
	for i, s := range c.Secrets {
		if strings.TrimSpace(s) == "" {
			errs = append(errs, decode.Error{Path: fmt.Sprintf("secrets[%d]", i), Msg: "a secret's key must not be empty"})
		}
	}
	return errs
}

// Stack is the record of a package's applies, as pkger keeps it: for every
// resource of the package its identity, id, checksum and associations. It is
// local configuration: kpt never applies it to a cluster.
type Stack struct {
	TypeMeta `yaml:",inline"`
	Metadata ObjectMeta  `yaml:"metadata,omitempty"`
	Status   StackStatus `yaml:"status,omitempty"`
}

// StackStatus is the record itself.
type StackStatus struct {
	// StackID identifies the stack: 16 lowercase hex digits.
	StackID string `yaml:"stackID,omitempty"`
	// CreatedAt and UpdatedAt are RFC 3339 times (any scalar is read, so that
	// an unquoted timestamp written by hand is accepted).
	CreatedAt decode.AnyScalar `yaml:"createdAt,omitempty"`
	// UpdatedAt moves only when an apply changed something.
	UpdatedAt decode.AnyScalar `yaml:"updatedAt,omitempty"`
	// Revision counts the applies that changed something; ids are drawn from
	// it, so that a resource deleted and added again gets a new id.
	Revision int `yaml:"revision,omitempty"`
	// EventType is pkger's last stack event when it is not an apply:
	// "uninstall" after `kptkit stack uninstall`.
	EventType string `yaml:"eventType,omitempty"`
	// Config is pkger's free-form stack configuration, kept as it is.
	Config *yaml.Node `yaml:"config,omitempty"`
	// MissingEnvRefs are the keys of the environment references the last
	// apply had no value for (defaults or not), sorted.
	MissingEnvRefs []string `yaml:"missingEnvRefs,omitempty"`
	// MissingSecrets are the keys of the secrets the last apply was not told
	// are provided, sorted.
	MissingSecrets []string `yaml:"missingSecrets,omitempty"`
	// Resources are the tracked resources, in package order.
	Resources []StackResource `yaml:"resources,omitempty"`
	// LastApplied is every resource's content as last applied (references
	// resolved, bookkeeping left out): a JSON object of contents by id,
	// deflated and base64-encoded. The dry run diffs against it.
	LastApplied string `yaml:"lastApplied,omitempty"`
}

// EventUninstall is StackStatus.EventType after an uninstall.
const EventUninstall = "uninstall"

// StackResource is one tracked resource.
type StackResource struct {
	APIVersion   string             `yaml:"apiVersion,omitempty" json:"apiVersion,omitempty"`
	Kind         string             `yaml:"kind" json:"kind"`
	Namespace    string             `yaml:"namespace,omitempty" json:"namespace,omitempty"`
	ID           string             `yaml:"id" json:"id"`
	PkgName      string             `yaml:"pkgName" json:"pkgName"`
	Associations []StackAssociation `yaml:"associations" json:"associations"`
	Checksum     string             `yaml:"checksum" json:"checksum"`
}

// StackAssociation is a resource's association to another one of the package.
type StackAssociation struct {
	Kind    string `yaml:"kind" json:"kind"`
	PkgName string `yaml:"pkgName" json:"pkgName"`
}

// Default fills in defaults (there are none to fill).
func (s *Stack) Default() {}

var hexID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// IsID reports whether s is a stack or resource id: 16 lowercase hex digits.
func IsID(s string) bool { return hexID.MatchString(s) }

// Validate checks the record: ids, times, and that no resource is recorded
// twice. A record that fails it is corrupt and must not be rewritten.
func (s *Stack) Validate() []decode.Error {
	st := s.Status
	var errs []decode.Error
	if st.StackID != "" && !IsID(st.StackID) {
		errs = append(errs, decode.Error{Path: "status.stackID", Msg: fmt.Sprintf("%q is not an id (16 lowercase hex digits)", st.StackID)})
	}
	for _, f := range []struct{ path, value string }{{"status.createdAt", string(st.CreatedAt)}, {"status.updatedAt", string(st.UpdatedAt)}} {
		if _, err := time.Parse(time.RFC3339, f.value); f.value != "" && err != nil {
			errs = append(errs, decode.Error{Path: f.path, Msg: fmt.Sprintf("%q is not an RFC 3339 time", f.value)})
		}
	}
	if st.Revision < 0 {
		errs = append(errs, decode.Error{Path: "status.revision", Msg: "must not be negative"})
	}
	if st.EventType != "" && st.EventType != EventUninstall {
		errs = append(errs, decode.Error{Path: "status.eventType", Msg: fmt.Sprintf("%q is not a stack event kptkit records (%q, or none)", st.EventType, EventUninstall)})
	}
	if st.Config != nil && st.Config.Kind != yaml.MappingNode {
		errs = append(errs, decode.Error{Path: "status.config", Msg: "must be a mapping"})
	}
	return append(errs, validateResources(st.Resources)...)
}

func validateResources(resources []StackResource) []decode.Error {
	var errs []decode.Error
	ids := map[string]int{}
	keys := map[string]int{}
	for i, r := range resources {
		path := fmt.Sprintf("status.resources[%d]", i)
		if r.Kind == "" || r.PkgName == "" {
			errs = append(errs, decode.Error{Path: path, Msg: "must have a kind and a pkgName"})
		}
		if !IsID(r.ID) {
			errs = append(errs, decode.Error{Path: path + ".id", Msg: fmt.Sprintf("%q is not an id (16 lowercase hex digits)", r.ID)})
		} else if j, ok := ids[r.ID]; ok {
			errs = append(errs, decode.Error{Path: path + ".id", Msg: fmt.Sprintf("id %s is also the id of status.resources[%d]", r.ID, j)})
		} else {
			ids[r.ID] = i
		}
		if j, ok := keys[r.Key()]; ok {
			errs = append(errs, decode.Error{Path: path, Msg: fmt.Sprintf("%s is recorded twice (also status.resources[%d])", r.Ref(), j)})
		} else {
			keys[r.Key()] = i
		}
		for k, a := range r.Associations {
			if a.Kind == "" || a.PkgName == "" {
				errs = append(errs, decode.Error{Path: fmt.Sprintf("%s.associations[%d]", path, k), Msg: "must have a kind and a pkgName"})
			}
		}
	}
	return errs
}

// Key is the resource's identity: API group, kind, namespace and name (the
// version is not part of it).
func (r StackResource) Key() string {
	return IdentityKey(r.APIVersion, r.Kind, r.Namespace, r.PkgName)
}

// Ref names the resource for messages: Kind/name or Kind/namespace/name.
func (r StackResource) Ref() string {
	if r.Namespace != "" {
		return r.Kind + "/" + r.Namespace + "/" + r.PkgName
	}
	return r.Kind + "/" + r.PkgName
}

// IdentityKey is the identity of a resource of the given apiVersion, kind,
// namespace and name: the version does not count.
func IdentityKey(apiVersion, kind, namespace, name string) string {
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group = ""
	}
	return group + "\x00" + kind + "\x00" + namespace + "\x00" + name
}

// String names the association for messages: Kind/name.
func (a StackAssociation) String() string { return a.Kind + "/" + a.PkgName }
