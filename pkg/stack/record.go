package stack

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptfile"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// DefaultName names a new Stack when the package has no Kptfile.
const DefaultName = "stack"

// DefaultFile is where a new Stack goes.
const DefaultFile = "stack.yaml"

// target is the Stack an apply records into: an existing item, or the name
// and file of a new one.
type target struct {
	item   *resourcelist.Item // nil: a new Stack
	name   string
	path   string
	record v1alpha1.Stack
}

// findTarget picks the Stack to record into and reads it.
func findTarget(rl *resourcelist.ResourceList, want string) (*target, []result.Result) {
	stacks := stacksNamed(rl, want)
	switch {
	case len(stacks) > 1 && want != "":
		return nil, []result.Result{stacks[1].Errorf("metadata.name", "%s: there are %d Stacks named %q (%s): keep one",
			stacks[1].Header().Where(), len(stacks), want, list(stacks))}
	case len(stacks) > 1:
		return nil, []result.Result{stacks[1].Errorf("", "the package has %d Stacks (%s): set ApplyStack.stack to the one to use",
			len(stacks), list(stacks))}
	case len(stacks) == 1:
		return readTarget(stacks[0])
	}
	name := want
	if name == "" {
		name = packageName(rl)
	}
	return &target{name: name, path: newPath(rl, name)}, nil
}

// stacksNamed returns the package's Stacks named name, or all of them when
// name is empty.
func stacksNamed(rl *resourcelist.ResourceList, name string) []*resourcelist.Item {
	return rl.Select(func(h resourcelist.Header) bool { return IsStack(h) && (name == "" || h.Name == name) })
}

// list names items for messages: `stack.yaml: Stack/s1, ...`.
func list(items []*resourcelist.Item) string {
	var parts []string
	for _, it := range items {
		h := it.Header()
		parts = append(parts, h.Where()+": "+name(h))
	}
	return strings.Join(parts, ", ")
}

// packageName is the name of the package's root Kptfile, or DefaultName.
func packageName(rl *resourcelist.ResourceList) string {
	if it, _ := kptfile.RootItem(rl); it != nil && it.Header().Name != "" {
		return it.Header().Name
	}
	return DefaultName
}

// newPath is the file of a new Stack: stack.yaml, or stack-<name>.yaml when
// another item is in stack.yaml already.
func newPath(rl *resourcelist.ResourceList, name string) string {
	taken := rl.Select(func(h resourcelist.Header) bool { return h.Path == DefaultFile })
	if len(taken) == 0 {
		return DefaultFile
	}
	return "stack-" + name + ".yaml"
}

// readTarget decodes and checks an existing Stack. A corrupt record is an
// error: it is left as it is.
func readTarget(it *resourcelist.Item) (*target, []result.Result) {
	h := it.Header()
	t := &target{item: it, name: h.Name, path: h.Path}
	var errs []decode.Error
	if h.Name == "" {
		errs = append(errs, decode.Error{Path: "metadata.name", Msg: "is required"})
	}
	errs = append(errs, decode.Into(it.Node().YNode(), &t.record, decode.Options{KnownFields: true}, "")...)
	for _, e := range t.record.Validate() {
		if !slices.ContainsFunc(errs, func(d decode.Error) bool { return within(e.Path, d.Path) }) {
			errs = append(errs, e)
		}
	}
	var rs []result.Result
	for _, e := range errs {
		rs = append(rs, it.Errorf(e.Path, "%s: %s: corrupt record (fix it, or delete the Stack to start a new one): %s", h.Where(), name(h), e))
	}
	return t, rs
}

// write puts the new record in the package: into the Stack's status, or as
// a new Stack item.
func (t *target) write(rl *resourcelist.ResourceList, st v1alpha1.StackStatus) error {
	status := statusNode(st)
	if t.item != nil {
		return fieldpath.Set(t.item.Edit(), fieldpath.Path{"status"}, status)
	}
	n := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
	for _, f := range []struct {
		path  fieldpath.Path
		value string
	}{
		{fieldpath.Path{"apiVersion"}, v1alpha1.APIVersion},
		{fieldpath.Path{"kind"}, v1alpha1.KindStack},
		{fieldpath.Path{"metadata", "name"}, t.name},
		{fieldpath.Path{"metadata", "annotations", kptapi.AnnotationLocalConfig}, "true"},
	} {
		if err := fieldpath.SetString(n, f.path, f.value); err != nil {
			return err
		}
	}
	if err := fieldpath.Set(n, fieldpath.Path{"status"}, status); err != nil {
		return err
	}
	if _, err := rl.Append(n, t.path); err != nil {
		return fmt.Errorf("cannot create Stack/%s in %s: %w", t.name, t.path, err)
	}
	return nil
}

// statusNode encodes a record in the order the Stack shows it.
func statusNode(st v1alpha1.StackStatus) *yaml.RNode {
	var b nodes
	m := b.mapping(10)
	b.add(m, "stackID", b.str(st.StackID))
	b.add(m, "createdAt", b.str(string(st.CreatedAt)))
	b.add(m, "updatedAt", b.str(string(st.UpdatedAt)))
	b.add(m, "revision", b.node(yaml.ScalarNode, yaml.NodeTagInt, strconv.Itoa(st.Revision), nil))
	if st.EventType != "" {
		b.add(m, "eventType", b.str(st.EventType))
	}
	config := st.Config
	if config == nil {
		config = &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	}
	b.add(m, "config", config)
	for _, f := range []struct {
		key  string
		keys []string
	}{{"missingEnvRefs", st.MissingEnvRefs}, {"missingSecrets", st.MissingSecrets}} {
		if len(f.keys) > 0 {
			list := b.sequence(len(f.keys))
			for _, k := range f.keys {
				list.Content = append(list.Content, b.str(k))
			}
			b.add(m, f.key, list)
		}
	}
	resources := b.sequence(len(st.Resources))
	for _, r := range st.Resources {
		resources.Content = append(resources.Content, b.resource(r))
	}
	b.add(m, "resources", resources)
	if st.LastApplied != "" {
		b.add(m, "lastApplied", b.str(st.LastApplied))
	}
	return yaml.NewRNode(m)
}

// resource encodes one entry of the record.
func (b *nodes) resource(r v1alpha1.StackResource) *yaml.Node {
	m := b.mapping(7) // apiVersion to checksum
	if r.APIVersion != "" {
		b.add(m, "apiVersion", b.str(r.APIVersion))
	}
	b.add(m, "kind", b.str(r.Kind))
	if r.Namespace != "" {
		b.add(m, "namespace", b.str(r.Namespace))
	}
	b.add(m, "id", b.str(r.ID))
	b.add(m, "pkgName", b.str(r.PkgName))
	assoc := b.sequence(len(r.Associations))
	for _, a := range r.Associations {
		e := b.mapping(2)
		b.add(e, "kind", b.str(a.Kind))
		b.add(e, "pkgName", b.str(a.PkgName))
		assoc.Content = append(assoc.Content, e)
	}
	b.add(m, "associations", assoc)
	b.add(m, "checksum", b.str(r.Checksum))
	return m
}

// nodes hands out the nodes of a record, and their contents, from slabs: a
// 10,000-resource record is some 100,000 nodes, and one allocation each
// made building it cost as much as the rest of an apply. Every value is a
// node of its own; a key is one node for the whole record, which all its
// entries share: nothing changes a key in place (a field is renamed by
// replacing its key), and sharing them halves the nodes.
type nodes struct {
	free    []yaml.Node           // the rest of the current slab of nodes
	pointer []*yaml.Node          // the rest of the current slab of contents
	keys    map[string]*yaml.Node // the record's keys so far
}

// slab is the number of nodes allocated at a time; contents are allocated
// 4*slab pointers at a time.
const slab = 1024

// node returns a new node. The slab is zeroed: only the fields given are set.
func (b *nodes) node(kind yaml.Kind, tag, value string, content []*yaml.Node) *yaml.Node {
	if len(b.free) == 0 {
		b.free = make([]yaml.Node, slab)
	}
	n := &b.free[0]
	b.free = b.free[1:]
	n.Kind, n.Tag, n.Value, n.Content = kind, tag, value, content
	return n
}

// content returns an empty content with room for n nodes (nil for none):
// appending more moves it out of the slab.
func (b *nodes) content(n int) []*yaml.Node {
	if n == 0 {
		return nil
	}
	if n > len(b.pointer) {
		b.pointer = make([]*yaml.Node, max(n, 4*slab))
	}
	c := b.pointer[:0:n]
	b.pointer = b.pointer[n:]
	return c
}

// mapping returns an empty mapping with room for the given number of fields.
func (b *nodes) mapping(fields int) *yaml.Node {
	return b.node(yaml.MappingNode, "", "", b.content(2*fields))
}

// sequence returns an empty sequence with room for n entries.
func (b *nodes) sequence(n int) *yaml.Node {
	return b.node(yaml.SequenceNode, "", "", b.content(n))
}

// str returns a string scalar, as fieldpath.NewString does.
func (b *nodes) str(s string) *yaml.Node {
	return b.node(yaml.ScalarNode, yaml.NodeTagString, s, nil)
}

// add appends a field to the mapping m.
func (b *nodes) add(m *yaml.Node, key string, v *yaml.Node) {
	k, ok := b.keys[key]
	if !ok {
		if b.keys == nil {
			b.keys = map[string]*yaml.Node{}
		}
		k = b.str(key)
		b.keys[key] = k
	}
	m.Content = append(m.Content, k, v)
}
