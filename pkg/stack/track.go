package stack

import (
	"fmt"
	"io"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
	"github.com/kptkit/kptkit/pkg/suggest"
)

// resource is a tracked item of the package, as the record will hold it.
type resource struct {
	item *resourcelist.Item
	h    resourcelist.Header
	// name is metadata.name, its environment reference resolved (pkger's
	// items), else as the header reads it.
	name string
	// node is the item's nodes while it is read; kept for a pkger item (a
	// copy with its environment references resolved) and for an item
	// whose content is big (see content).
	node *yaml.RNode
	// content is the content the record keeps (Content); nil for a big
	// one, streamed from node when the record is encoded.
	content []byte
	// refs is what pkger.Resolve found (pkger's items only).
	refs  *pkger.Resolved
	key   string
	entry v1alpha1.StackResource // all but the id
	links []link                 // its associations, as written
}

// problem is a generic check's complaint about a resource's field: it
// gives way to pkger's message on the same field (validatePkger).
type problem struct {
	r      *resource
	field  string
	result result.Result
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
// associations, pkger's items with their environment references resolved
// with env. It returns every tracked item (pkger's rules read them all),
// those that can be tracked, each identity once, and the generic checks'
// problems.
func collect(rl *resourcelist.ResourceList, env pkger.Env) (all, tracked []*resource, problems []problem) {
	items := rl.Select(Tracked)
	var (
		slab = make([]resource, len(items)) // one allocation for them all
		bad  = make([][]problem, len(items))
		seen = make(map[string]*resource, len(items))
		w    = parallel.Workers(len(items), minRun)
		c    = make([]canon, w)
		cw   = make([]contentWriter, w)
	)
	// Reading an item (its nodes, checksum and content) is most of the
	// work, and items are read independently: on a few goroutines.
	parallel.Do(len(items), w, func(w, i int) { bad[i] = slab[i].read(items[i], env, &c[w], &cw[w]) })
	all = make([]*resource, len(items))
	tracked = make([]*resource, 0, len(items))
	for i := range items {
		r := &slab[i]
		all[i] = r
		if problems = append(problems, bad[i]...); r.key == "" {
			continue
		}
		if first, ok := seen[r.key]; ok {
			problems = append(problems, r.errorf("metadata.name", "%s: %s has the identity (API group, kind, namespace and name) of %s at %s: each resource must be unique",
				r.h.Where(), name(r.h), name(first.h), at(first.h)))
			continue
		}
		seen[r.key] = r
		tracked = append(tracked, r)
	}
	return all, tracked, problems
}

// minRun is the fewest items worth a goroutine of their own.
const minRun = 256

// read reads one tracked item (c computes its checksum, w its content);
// r.key stays empty when it cannot be tracked.
func (r *resource) read(it *resourcelist.Item, env pkger.Env, c *canon, w *contentWriter) []problem {
	h := it.Header()
	*r = resource{item: it, h: h, name: h.Name, node: it.Read()}
	if h.APIVersion == pkger.APIVersion {
		resolved := pkger.Resolve(h.Kind, r.node, env)
		r.refs, r.node, r.name = &resolved, resolved.Node, resolved.Name
		r.h.Name = r.name // messages and results name it as resolved
	}
	var bad []problem
	if h.Kind == "" {
		bad = append(bad, r.errorf("kind", "%s: %s has no kind", h.Where(), name(r.h)))
	}
	if r.name == "" {
		bad = append(bad, r.errorf("metadata.name", "%s: %s has no metadata.name%s", h.Where(), name(r.h), nameHint(it.Node())))
	}
	if len(bad) > 0 {
		return bad
	}
	links, bad := r.readLinks()
	r.key = v1alpha1.IdentityKey(h.APIVersion, h.Kind, h.Namespace, r.name)
	r.links = links
	r.entry = v1alpha1.StackResource{
		APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Namespace, PkgName: r.name,
		Checksum: c.sum(r.node.YNode()),
	}
	// The content the record keeps, taken while the nodes are at hand: a
	// package's nodes are not held all at once (pkger's, resolved, are).
	// A big content is not held: it is streamed from the nodes, which are
	// kept for it (reading them again would hold them twice).
	if r.content = w.take(r.node.YNode()); r.content != nil && r.refs == nil {
		r.node = nil
	}
	return bad
}

// writeContent writes the resource's content to out (w streams a big one
// from the nodes), and drops it and the nodes kept for it: nothing reads
// them after the record is encoded.
func (r *resource) writeContent(w *contentWriter, out io.Writer) error {
	if r.content != nil {
		_, err := out.Write(r.content)
		r.content = nil
		return err
	}
	w.sink, w.keep, w.err = out, 0, nil
	err := w.stream(r.node.YNode())
	if r.refs == nil {
		r.node = nil
	}
	return err
}

// contentBytes returns the resource's content, a big one made again.
func (r *resource) contentBytes() []byte {
	if r.content != nil {
		return r.content
	}
	return Content(r.node.YNode())
}

// errorf is a generic check's error about the resource's field.
func (r *resource) errorf(field, format string, args ...any) problem {
	return problem{r: r, field: field, result: r.h.Attach(result.Errorf(format, args...).WithField(field))}
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

// readLinks reads the resource's associations: spec.associations (or
// spec.association), a list of {kind, name}; pkger's items' names may be
// environment references (resolved in r.node).
func (r *resource) readLinks() ([]link, []problem) {
	spec := fieldpath.Field(r.node.YNode(), "spec")
	if spec == nil || spec.Kind != yaml.MappingNode {
		return nil, nil
	}
	plural, singular := fieldpath.Field(spec, "associations"), fieldpath.Field(spec, "association")
	list, entries := "spec.associations", plural
	switch {
	case plural != nil && singular != nil:
		return nil, []problem{r.errorf("spec.association", "%s: %s has both spec.associations and spec.association: keep one", r.h.Where(), name(r.h))}
	case plural == nil:
		list, entries = "spec.association", singular
	}
	if entries == nil || entries.Tag == yaml.NodeTagNull {
		return nil, nil
	}
	if entries.Kind != yaml.SequenceNode {
		return nil, []problem{r.errorf(list, "%s: %s: %s must be a list of {kind, name}", r.h.Where(), name(r.h), list)}
	}
	var (
		out = make([]link, 0, len(entries.Content))
		bad []problem
	)
	for i, e := range entries.Content {
		l := link{kind: text(e, "kind"), name: text(e, "name"), list: list, i: i} // "" unless e is a mapping with them
		if l.kind == "" || l.name == "" {
			bad = append(bad, r.errorf(l.field(), "%s: %s: %s must be a mapping with a kind and a name", r.h.Where(), name(r.h), l.field()))
			continue
		}
		out = append(out, l)
	}
	return out, bad
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
