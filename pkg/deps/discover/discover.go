// Package discover finds what a kpt package needs from the cluster: its own
// items go in; the APIs they use come out, from their apiVersion and kind
// and from the rules of its Roles and ClusterRoles, minus what Kubernetes
// has built in and what the package defines itself (its
// CustomResourceDefinitions and APIServices). Rules that name every group or every resource
// come out as warnings.
package discover

import (
	"fmt"
	"strings"

	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// API is an API a package uses: group and kind (and version) for an item,
// group and resource for an RBAC rule.
type API struct {
	Group    string
	Version  string
	Kind     string
	Resource string
}

// String names the API for messages: `cert-manager.io/v1 Certificate`,
// `resource "certificates" of group cert-manager.io`.
func (a API) String() string {
	if a.Kind != "" {
		gv := a.Group
		if a.Version != "" {
			gv += "/" + a.Version
		}
		return gv + " " + a.Kind
	}
	return fmt.Sprintf("resource %q of group %s", a.Resource, a.Group)
}

// Need is an API the package uses, and the first item that uses it.
type Need struct {
	API    API
	Header resourcelist.Header
	// Field is the RBAC rule that names it (`rules[2]`), "" for an item.
	Field string
	// AnyOf is set when the rule names the resource in several API groups:
	// the needs with the same By and AnyOf are alternatives, any of which
	// may be what the rule is for.
	AnyOf string
}

// By names what needs the API in messages: `Certificate/web-tls` or
// `ClusterRole/manager rules[2]`.
func (n Need) By() string {
	if n.Field != "" {
		return n.Header.String() + " " + n.Field
	}
	return n.Header.String()
}

// Options say where to look.
type Options struct {
	APIs bool
	RBAC bool
	// Skip leaves items out of discovery (the function's own outputs).
	Skip func(resourcelist.Header) bool
}

// Find returns the APIs the package's items need, each once, in the order
// the items come, and warnings for rules it cannot follow.
func Find(rl *resourcelist.ResourceList, opts Options) ([]Need, []result.Result) {
	items := rl.Select(func(h resourcelist.Header) bool {
		return !h.InCluster() && !h.LocalConfig() && !Tooling(h.Group()) && (opts.Skip == nil || !opts.Skip(h))
	})
	own := defined(items)
	var (
		needs []Need
		rs    []result.Result
		seen  = map[API]bool{}
	)
	add := func(n Need) {
		if !seen[n.API] && !Builtin(n.API.Group) && !own.has(n.API) {
			seen[n.API] = true
			needs = append(needs, n)
		}
	}
	accounted := func(a API) bool {
		if a.Resource == "*" {
			return Builtin(a.Group) || own.hasGroup(a.Group)
		}
		return Builtin(a.Group) || own.has(a)
	}
	for _, it := range items {
		h := it.Header()
		if opts.APIs && h.Kind != "" && h.APIVersion != "" {
			add(Need{API: API{Group: h.Group(), Version: h.Version(), Kind: h.Kind}, Header: h})
		}
		if opts.RBAC && isRBACRole(h) {
			ns, warns := rules(it, accounted)
			rs = append(rs, warns...)
			for _, n := range ns {
				add(n)
			}
		}
	}
	return needs, rs
}

func isRBACRole(h resourcelist.Header) bool {
	return h.Group() == "rbac.authorization.k8s.io" && (h.Kind == "Role" || h.Kind == "ClusterRole")
}

type rule struct {
	APIGroups []string `yaml:"apiGroups"`
	Resources []string `yaml:"resources"`
}

// rules reads the API groups and resources a Role or ClusterRole names.
// A subresource (pods/log) counts as its resource. A rule grants every
// group × resource pair, but means only some: a resource that one of its
// groups has built in or the package defines needs nothing, and the groups
// left are alternatives.
func rules(it *resourcelist.Item, accounted func(API) bool) ([]Need, []result.Result) {
	h := it.Header()
	n := fieldpath.Lookup(it.Node(), fieldpath.Path{"rules"})
	if n == nil {
		return nil, nil
	}
	var rs []rule
	if errs := decode.Into(n.YNode(), &rs, decode.Options{}, "rules"); len(errs) > 0 {
		return nil, []result.Result{it.Warningf(errs[0].Path, "%s: %s: cannot read its rules for discovery: %s", h.Where(), h, errs[0])}
	}
	var (
		needs []Need
		warns []result.Result
	)
	for i, r := range rs {
		field := fmt.Sprintf("rules[%d]", i)
		var groups []string
		for _, g := range r.APIGroups {
			if g == "*" {
				warns = append(warns, it.Warningf(field+".apiGroups", "\"*\" names every API group: the packages the rule needs cannot be told, so it is not used for discovery%s", in(h)))
				continue
			}
			groups = append(groups, g)
		}
		for _, res := range r.Resources {
			res, _, _ = strings.Cut(res, "/")
			switch {
			case res == "":
			case res == "*":
				for _, g := range groups {
					if !accounted(API{Group: g, Resource: "*"}) {
						warns = append(warns, it.Warningf(field+".resources", "\"*\" names every resource of group %q: the packages the rule needs cannot be told, so it is not used for discovery%s", g, in(h)))
					}
				}
			default:
				needs = append(needs, alternatives(h, field, res, groups, accounted)...)
			}
		}
	}
	return needs, warns
}

// in names an item's file at the end of a warning: kpt prints the item and
// the field before the message (and never the file).
func in(h resourcelist.Header) string {
	if h.Path == "" {
		return ""
	}
	return " (in " + h.Path + ")"
}

// alternatives are the needs of one resource of a rule, one per group,
// none when a group accounts for it already.
func alternatives(h resourcelist.Header, field, res string, groups []string, accounted func(API) bool) []Need {
	var out []Need
	for _, g := range groups {
		a := API{Group: g, Resource: res}
		if accounted(a) {
			return nil
		}
		out = append(out, Need{API: a, Header: h, Field: field})
	}
	if len(out) > 1 {
		for i := range out {
			out[i].AnyOf = res
		}
	}
	return out
}

// own is what the package defines itself: the groups, kinds and resources
// of its CustomResourceDefinitions, and the groups its APIServices serve
// whole.
type own map[API]bool

func (o own) has(a API) bool {
	return o[API{Group: a.Group}] || o[API{Group: a.Group, Kind: a.Kind}] && a.Kind != "" || o[API{Group: a.Group, Resource: a.Resource}] && a.Resource != ""
}

func (o own) hasGroup(g string) bool {
	for a := range o {
		if a.Group == g {
			return true
		}
	}
	return false
}

func defined(items []*resourcelist.Item) own {
	o := own{}
	for _, it := range items {
		h := it.Header()
		if h.Kind == "APIService" && h.Group() == "apiregistration.k8s.io" {
			if group, _ := fieldpath.String(it.Node(), fieldpath.Path{"spec", "group"}); group != "" {
				o[API{Group: group}] = true
			}
			continue
		}
		if h.Kind != "CustomResourceDefinition" || h.Group() != "apiextensions.k8s.io" {
			continue
		}
		group, _ := fieldpath.String(it.Node(), fieldpath.Path{"spec", "group"})
		kind, _ := fieldpath.String(it.Node(), fieldpath.Path{"spec", "names", "kind"})
		plural, _ := fieldpath.String(it.Node(), fieldpath.Path{"spec", "names", "plural"})
		if kind != "" {
			o[API{Group: group, Kind: kind}] = true
		}
		if plural != "" {
			o[API{Group: group, Resource: plural}] = true
		}
	}
	return o
}
