package stack

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
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
	for _, it := range rl.Select(resourcelist.Header.IsRootKptfile) {
		if n := it.Header().Name; n != "" {
			return n
		}
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
		{fieldpath.Path{"metadata", "annotations", kptfile.AnnotationLocalConfig}, "true"},
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
	m := mapping()
	add(m, "stackID", str(st.StackID))
	add(m, "createdAt", str(string(st.CreatedAt)))
	add(m, "updatedAt", str(string(st.UpdatedAt)))
	add(m, "revision", &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.Itoa(st.Revision)})
	config := st.Config
	if config == nil {
		config = &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	}
	add(m, "config", config)
	resources := &yaml.Node{Kind: yaml.SequenceNode}
	for _, r := range st.Resources {
		resources.Content = append(resources.Content, resourceNode(r))
	}
	add(m, "resources", resources)
	return yaml.NewRNode(m)
}

func resourceNode(r v1alpha1.StackResource) *yaml.Node {
	m := mapping()
	if r.APIVersion != "" {
		add(m, "apiVersion", str(r.APIVersion))
	}
	add(m, "kind", str(r.Kind))
	if r.Namespace != "" {
		add(m, "namespace", str(r.Namespace))
	}
	add(m, "id", str(r.ID))
	add(m, "pkgName", str(r.PkgName))
	assoc := &yaml.Node{Kind: yaml.SequenceNode}
	for _, a := range r.Associations {
		e := mapping()
		add(e, "kind", str(a.Kind))
		add(e, "pkgName", str(a.PkgName))
		assoc.Content = append(assoc.Content, e)
	}
	add(m, "associations", assoc)
	add(m, "checksum", str(r.Checksum))
	return m
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func str(s string) *yaml.Node { return fieldpath.NewString(s).YNode() }

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}
