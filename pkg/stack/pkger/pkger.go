// Package pkger applies InfluxDB's pkger to package resources (apiVersion
// influxdata.com/v2alpha1): an object goes in, Resolve returns it with its
// environment references resolved (`envRef: {key, default}`: a given value,
// else the default, else env-<key>) and its references listed; Validate
// takes the resolved objects and returns every rule violation, in pkger's
// own message form `kind=<K> field=root[<i>].<path> reason="<msg>"`.
package pkger

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// APIVersion is the apiVersion of pkger's resources.
const APIVersion = "influxdata.com/v2alpha1"

// pkger's kinds.
const (
	KindBucket                        = "Bucket"
	KindCheck                         = "Check"
	KindCheckDeadman                  = "CheckDeadman"
	KindCheckThreshold                = "CheckThreshold"
	KindDashboard                     = "Dashboard"
	KindLabel                         = "Label"
	KindNotificationEndpoint          = "NotificationEndpoint"
	KindNotificationEndpointHTTP      = "NotificationEndpointHTTP"
	KindNotificationEndpointPagerDuty = "NotificationEndpointPagerDuty"
	KindNotificationEndpointSlack     = "NotificationEndpointSlack"
	KindNotificationRule              = "NotificationRule"
	KindTask                          = "Task"
	KindTelegraf                      = "Telegraf"
	KindVariable                      = "Variable"
)

// Kinds lists pkger's kinds.
var Kinds = []string{
	KindBucket, KindCheck, KindCheckDeadman, KindCheckThreshold, KindDashboard, KindLabel,
	KindNotificationEndpoint, KindNotificationEndpointHTTP, KindNotificationEndpointPagerDuty,
	KindNotificationEndpointSlack, KindNotificationRule, KindTask, KindTelegraf, KindVariable,
}

// checkKind returns pkger's complaint about a kind, or "" when it is one of
// its kinds.
func checkKind(kind string) string {
	switch {
	case kind == "":
		return "invalid kind"
	case !slices.Contains(Kinds, kind):
		return "unsupported kind provided"
	}
	return ""
}

// Object is one pkger resource to validate.
type Object struct {
	Kind string
	// Name is metadata.name.
	Name string
	// Root is the index pkger's messages show (root[<i>]): the object's index
	// in its file.
	Root int
	// Node is the whole resource, its environment references resolved
	// (Resolve).
	Node *yaml.RNode
	// Problems are its references pkger would not read (Resolved.Problems).
	Problems []Problem
}

// Error is one rule violation of Objects[Object].
type Error struct {
	// Object is the index of the object in the list given to Validate.
	Object int
	Kind   string
	Root   int
	// Field is the path below the object: spec.retentionRules[0].everySeconds.
	Field  string
	Reason string
	// Warning marks a problem that does not refuse the package: an envRef
	// in a field pkger reads as a plain value.
	Warning bool
}

// Error renders the violation as pkger does.
func (e Error) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "unknown"
	}
	return fmt.Sprintf("kind=%s field=root[%d].%s reason=%q", kind, e.Root, e.Field, e.Reason)
}

// failure is a violation found by a rule, at a path below its object.
type failure struct{ field, reason string }

func fail(field, format string, args ...any) failure {
	return failure{field: field, reason: fmt.Sprintf(format, args...)}
}

// Validate checks the objects against pkger's rules and returns every
// violation, ordered by object and then as pkger finds them.
func Validate(objs []Object) []Error {
	p := newPackage(objs)
	var errs []Error
	for i, o := range objs {
		for _, pr := range o.Problems {
			errs = append(errs, Error{Object: i, Kind: o.Kind, Root: o.Root, Field: pr.Field, Reason: pr.Reason, Warning: pr.Warning})
		}
		for _, f := range p.check(i, o) {
			if !slices.ContainsFunc(o.Problems, func(pr Problem) bool { return !pr.Warning && within(f.field, pr.Field) }) {
				errs = append(errs, Error{Object: i, Kind: o.Kind, Root: o.Root, Field: f.field, Reason: f.reason})
			}
		}
	}
	slices.SortStableFunc(errs, func(a, b Error) int { return cmp.Compare(a.Object, b.Object) })
	return errs
}

// pkg is what rules need to know of the whole package.
type pkg struct {
	labels    map[string]bool
	endpoints map[string]bool
	dupes     map[int][]failure // name tracking failures, by object
}

// name groups: pkger tracks metadata.name per group, and for some groups
// the display name (spec.name, or metadata.name) too.
var groups = map[string]struct {
	group  string
	unique bool
}{
	KindLabel:                         {"label", true},
	KindVariable:                      {"variable", true},
	KindBucket:                        {"bucket", true},
	KindCheckDeadman:                  {"check", false},
	KindCheckThreshold:                {"check", false},
	KindDashboard:                     {"dashboard", false},
	KindNotificationEndpointHTTP:      {"endpoint", true},
	KindNotificationEndpointPagerDuty: {"endpoint", true},
	KindNotificationEndpointSlack:     {"endpoint", true},
	KindNotificationRule:              {"rule", false},
	KindTask:                          {"task", false},
	KindTelegraf:                      {"telegraf", false},
}

func newPackage(objs []Object) *pkg {
	p := &pkg{labels: map[string]bool{}, endpoints: map[string]bool{}, dupes: map[int][]failure{}}
	metaNames := map[string]bool{}
	displayNames := map[string]bool{}
	for i, o := range objs {
		g, ok := groups[o.Kind]
		if !ok || !validDNSName(o.Name) {
			continue // pkger tracks no name it refused
		}
		key := g.group + "\x00" + o.Name
		if metaNames[key] {
			p.dupes[i] = append(p.dupes[i], fail("metadata.name", "duplicate name: %s", o.Name))
			continue
		}
		metaNames[key] = true
		switch o.Kind {
		case KindLabel:
			p.labels[o.Name] = true
		case KindNotificationEndpointHTTP, KindNotificationEndpointPagerDuty, KindNotificationEndpointSlack:
			p.endpoints[o.Name] = true
		}
		if !g.unique {
			continue
		}
		display := g.group + "\x00" + displayName(o)
		if displayNames[display] {
			p.dupes[i] = append(p.dupes[i], fail("spec.name", "duplicate name: %s", o.Name))
		}
		displayNames[display] = true
	}
	return p
}

// spec returns the object's spec (empty without a node).
func (o Object) spec() value { return valueOf(o.Node.YNode()).field("spec") }

// displayName is pkger's identity name: spec.name when set, else metadata.name.
func displayName(o Object) string {
	if s := o.spec().ref("name").String(); s != "" {
		return s
	}
	return o.Name
}

// check runs the rules of one object.
func (p *pkg) check(i int, o Object) []failure {
	if bad := checkKind(o.Kind); bad != "" {
		return []failure{{field: "kind", reason: bad}}
	}
	if bad := checkName(o.Name); bad != nil {
		return []failure{*bad} // pkger reads nothing more of an object it cannot name
	}
	if d := p.dupes[i]; len(d) > 0 && d[0].field == "metadata.name" {
		return d // pkger stops at a name clash: the rest of the object is not read
	}
	rule, ok := rules[o.Kind]
	if !ok {
		return nil // Check and NotificationEndpoint: pkger graphs only their concrete kinds
	}
	spec := o.spec()
	out := append([]failure(nil), p.dupes[i]...)
	out = append(out, rule(p, displayName(o), spec)...)
	return append(out, p.associations(spec)...)
}

// associations checks the labels an object is associated with: each must
// exist in the package, once.
func (p *pkg) associations(spec value) []failure {
	field := "associations"
	if !spec.has(field) && spec.has("association") {
		field = "association"
	}
	var out []failure
	seen := map[string]bool{}
	for i, a := range spec.list(field) {
		path := fmt.Sprintf("spec.%s[%d]", field, i)
		kind, isStr := scalarString(a.get("kind"))
		switch {
		case !isStr:
			out = append(out, fail(path+".kind", "no kind provided"))
			continue
		case checkKind(kind) != "":
			out = append(out, fail(path+".kind", "%s", checkKind(kind)))
			continue
		case kind != KindLabel:
			continue
		}
		name := a.ref("name").String()
		switch {
		case !p.labels[name]:
			out = append(out, fail(path, "label %q does not exist in pkg", name))
		case seen[name]:
			out = append(out, fail(path, "duplicate nested label: %q", name))
		}
		seen[name] = true
	}
	return out
}

// validName is pkger's isValidName: a name of at least min characters.
func validName(name string, min int) []failure {
	if len(name) >= min {
		return nil
	}
	return []failure{fail("spec.name", "must be a string of at least %d chars in length", min)}
}

// within reports whether the field path is parent or below it.
func within(path, parent string) bool {
	return path == parent || strings.HasPrefix(path, parent+".") || strings.HasPrefix(path, parent+"[")
}
