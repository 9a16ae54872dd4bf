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
	list       string // spec.associations or spec.association
	i          int    // its index in the list
}

// field is the association's path: spec.associations[0].
func (l link) field() string { return fmt.Sprintf("%s[%d]", l.list, l.i) }

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
	items := rl.Select(Tracked)
	var (
		out  = make([]*resource, 0, len(items))
		rs   []result.Result
		seen = make(map[string]*resource, len(items))
		all  = make([]resource, len(items)) // one allocation for them all
		c    canon
	)
	for i, it := range items {
		res, ok, bad := read(it, &c)
		if rs = append(rs, bad...); !ok {
			continue
		}
		all[i] = res
		r := &all[i]
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

// read reads one tracked item (c computes its checksum); ok is false when
// it cannot be tracked.
func read(it *resourcelist.Item, c *canon) (r resource, ok bool, rs []result.Result) {
	h := it.Header()
	if h.Kind == "" {
		rs = append(rs, it.Errorf("kind", "%s: %s has no kind", h.Where(), name(h)))
	}
	if h.Name == "" {
		rs = append(rs, it.Errorf("metadata.name", "%s: %s has no metadata.name%s", h.Where(), name(h), nameHint(it.Node())))
	}
	if len(rs) > 0 {
		return resource{}, false, rs
	}
	links, bad := readLinks(it, h)
	return resource{
		item:  it,
		h:     h,
		key:   v1alpha1.IdentityKey(h.APIVersion, h.Kind, h.Namespace, h.Name),
		links: links,
		entry: v1alpha1.StackResource{
			APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Namespace, PkgName: h.Name,
			Checksum: c.sum(it.Node().YNode()),
		},
	}, true, bad
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
	spec := fieldpath.Field(it.Node().YNode(), "spec")
	if spec == nil || spec.Kind != yaml.MappingNode {
		return nil, nil
	}
	plural, singular := fieldpath.Field(spec, "associations"), fieldpath.Field(spec, "association")
	list, entries := "spec.associations", plural
	switch {
	case plural != nil && singular != nil:
		return nil, []result.Result{it.Errorf("spec.association", "%s: %s has both spec.associations and spec.association: keep one", h.Where(), name(h))}
	case plural == nil:
		list, entries = "spec.association", singular
	}
	if entries == nil || entries.Tag == yaml.NodeTagNull {
		return nil, nil
	}
	if entries.Kind != yaml.SequenceNode {
		return nil, []result.Result{it.Errorf(list, "%s: %s: %s must be a list of {kind, name}", h.Where(), name(h), list)}
	}
	var (
		out = make([]link, 0, len(entries.Content))
		rs  []result.Result
	)
	for i, e := range entries.Content {
		l := link{kind: text(e, "kind"), name: text(e, "name"), list: list, i: i} // "" unless e is a mapping with them
		if l.kind == "" || l.name == "" {
			rs = append(rs, it.Errorf(l.field(), "%s: %s: %s must be a mapping with a kind and a name", h.Where(), name(h), l.field()))
			continue
		}
		out = append(out, l)
	}
	return out, rs
}

// text returns the string at key in the mapping m: "" unless it is a
// non-null scalar (as fieldpath.String).
func text(m *yaml.Node, key string) string {
	v := fieldpath.Field(m, key)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == yaml.NodeTagNull {
		return ""
	}
	return v.Value
}
