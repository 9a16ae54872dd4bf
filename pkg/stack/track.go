package stack

import (
	"fmt"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/suggest"
)

// resource is a tracked item of the package, as the record will hold it.
type resource struct {
	item  *resourcelist.Item
	h     resourcelist.Header
	key   string
	entry v1alpha1.StackResource // all but the id
	links []link                 // its associations, as written
}

// link is one association as the item writes it.
type link struct {
	kind, name string
	field      string // spec.associations[0]
}

// IsStack reports whether an item is a Stack record.
func IsStack(h resourcelist.Header) bool { return h.Is(v1alpha1.APIVersion, v1alpha1.KindStack) }

// Tracked reports whether the stack tracks an item: every item except
// Kptfiles, local-config and in-cluster items, and Stacks.
func Tracked(h resourcelist.Header) bool {
	return !h.IsKptfile() && !h.LocalConfig() && !h.InCluster() && !IsStack(h)
}

// collect reads the tracked items: their identity, checksum and
// associations. Items that cannot be tracked are errors.
func collect(rl *resourcelist.ResourceList) ([]*resource, []result.Result) {
	var (
		out  []*resource
		rs   []result.Result
		seen = map[string]*resource{}
		c    canon
	)
	for _, it := range rl.Select(Tracked) {
		r, bad := read(it, &c)
		if rs = append(rs, bad...); r == nil {
			continue
		}
		if first, ok := seen[r.key]; ok {
			rs = append(rs, it.Errorf("metadata.name", "%s: %s has the identity (API group, kind, namespace and name) of %s at %s: each resource must be unique",
				r.h.Where(), name(r.h), name(first.h), at(first.h)))
			continue
		}
		seen[r.key] = r
		out = append(out, r)
	}
	return out, rs
}

// read reads one tracked item (c computes its checksum).
func read(it *resourcelist.Item, c *canon) (*resource, []result.Result) {
	h := it.Header()
	var rs []result.Result
	if h.Kind == "" {
		rs = append(rs, it.Errorf("kind", "%s: %s has no kind", h.Where(), name(h)))
	}
	if h.Name == "" {
		rs = append(rs, it.Errorf("metadata.name", "%s: %s has no metadata.name%s", h.Where(), name(h), nameHint(it.Node())))
	}
	if len(rs) > 0 {
		return nil, rs
	}
	links, bad := readLinks(it, h)
	return &resource{
		item:  it,
		h:     h,
		key:   v1alpha1.IdentityKey(h.APIVersion, h.Kind, h.Namespace, h.Name),
		links: links,
		entry: v1alpha1.StackResource{
			APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Namespace, PkgName: h.Name,
			Checksum: c.sum(it.Node().YNode()),
		},
	}, bad
}

// name names an item for messages: Kind/name, or its kind and index.
func name(h resourcelist.Header) string {
	if h.Name != "" {
		return h.String()
	}
	kind := h.Kind
	if kind == "" {
		kind = "item"
	}
	return fmt.Sprintf("%s at index %d", kind, root(h))
}

// at names an item's place: its file and index, or its position.
func at(h resourcelist.Header) string {
	if h.Path == "" {
		return h.Where()
	}
	return fmt.Sprintf("%s index %d", h.Path, root(h))
}

// root is the item's index as pkger's messages show it: its index in its
// file, else its position in the ResourceList.
func root(h resourcelist.Header) int {
	for _, a := range []string{kptfile.AnnotationInternalIndex, kptfile.AnnotationIndex} {
		if i, err := strconv.Atoi(h.Annotations[a]); err == nil {
			return i
		}
	}
	return h.Position
}

// nameHint explains a missing metadata.name: a mistyped key ("metadta",
// "nmae") gets a "did you mean".
func nameHint(n *yaml.RNode) string {
	for _, k := range fieldpath.Keys(n) {
		if hint := suggest.Hint(k, []string{"metadata"}); hint != "" {
			return fmt.Sprintf(": found %q%s", k, hint)
		}
	}
	md := fieldpath.Lookup(n, fieldpath.Path{"metadata"})
	for _, k := range fieldpath.Keys(md) {
		if hint := suggest.Hint(k, []string{"name"}); hint != "" {
			return fmt.Sprintf(": found metadata.%s%s", k, hint)
		}
	}
	if v := fieldpath.Lookup(md, fieldpath.Path{"name"}); v != nil && !yaml.IsMissingOrNull(v) {
		return ": it must be a non-empty string"
	}
	return ""
}

// readLinks reads an item's associations (h is its header):
// spec.associations (or spec.association), a list of {kind, name}.
func readLinks(it *resourcelist.Item, h resourcelist.Header) ([]link, []result.Result) {
	spec := fieldpath.Lookup(it.Node(), fieldpath.Path{"spec"})
	if spec == nil || spec.YNode().Kind != yaml.MappingNode {
		return nil, nil
	}
	plural, singular := fieldpath.Lookup(spec, fieldpath.Path{"associations"}), fieldpath.Lookup(spec, fieldpath.Path{"association"})
	field, entries := "spec.associations", plural
	switch {
	case plural != nil && singular != nil:
		return nil, []result.Result{it.Errorf("spec.association", "%s: %s has both spec.associations and spec.association: keep one", h.Where(), name(h))}
	case plural == nil:
		field, entries = "spec.association", singular
	}
	if entries == nil || yaml.IsMissingOrNull(entries) {
		return nil, nil
	}
	if entries.YNode().Kind != yaml.SequenceNode {
		return nil, []result.Result{it.Errorf(field, "%s: %s: %s must be a list of {kind, name}", h.Where(), name(h), field)}
	}
	var (
		out []link
		rs  []result.Result
	)
	for i, e := range entries.YNode().Content {
		entry := yaml.NewRNode(e)
		l := link{field: fmt.Sprintf("%s[%d]", field, i)}
		l.kind, _ = fieldpath.String(entry, fieldpath.Path{"kind"}) // "" unless e is a mapping with a kind
		l.name, _ = fieldpath.String(entry, fieldpath.Path{"name"})
		if l.kind == "" || l.name == "" {
			rs = append(rs, it.Errorf(l.field, "%s: %s: %s must be a mapping with a kind and a name", h.Where(), name(h), l.field))
			continue
		}
		out = append(out, l)
	}
	return out, rs
}
