package stack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/stack/pkgfile"
)

// Read returns the package's Stack: the one named name, or its only one.
func Read(rl *resourcelist.ResourceList, name string) (v1alpha1.Stack, error) {
	stacks := stacksNamed(rl, name)
	switch {
	case len(stacks) == 0 && name != "":
		return v1alpha1.Stack{}, fmt.Errorf("the package has no Stack named %q", name)
	case len(stacks) == 0:
		return v1alpha1.Stack{}, errors.New("the package has no Stack: apply it with apply-stack first")
	case len(stacks) > 1 && name == "":
		return v1alpha1.Stack{}, fmt.Errorf("the package has %d Stacks (%s): name the one to show", len(stacks), list(stacks))
	}
	t, rs := readTarget(stacks[0])
	if len(rs) > 0 {
		var msgs []string
		for _, r := range rs {
			msgs = append(msgs, r.Message)
		}
		return v1alpha1.Stack{}, errors.New(strings.Join(msgs, "\n"))
	}
	t.record.Metadata.Name = t.name
	return t.record, nil
}

// record is a Stack in pkger's JSON form.
type record struct {
	StackID   string                   `json:"stack_id"`
	CreatedAt string                   `json:"createdAt"`
	UpdatedAt string                   `json:"updatedAt"`
	Config    json.RawMessage          `json:"config"`
	Resources []v1alpha1.StackResource `json:"resources"`
}

// JSON returns the record in pkger's JSON form: stack_id, createdAt,
// updatedAt, config and resources.
func JSON(st v1alpha1.Stack) ([]byte, error) {
	r := record{
		StackID:   st.Status.StackID,
		CreatedAt: string(st.Status.CreatedAt),
		UpdatedAt: string(st.Status.UpdatedAt),
		Config:    json.RawMessage("{}"),
		Resources: slices.Clone(st.Status.Resources),
	}
	if r.Resources == nil {
		r.Resources = []v1alpha1.StackResource{}
	}
	for i := range r.Resources {
		if r.Resources[i].Associations == nil {
			r.Resources[i].Associations = []v1alpha1.StackAssociation{}
		}
	}
	if st.Status.Config != nil {
		c, err := pkgfile.NodeJSON(st.Status.Config)
		if err != nil {
			return nil, fmt.Errorf("cannot encode status.config: %w", err)
		}
		r.Config = c
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("cannot encode the record: %w", err)
	}
	return pkgfile.Indent(bytes.TrimSpace(b.Bytes()))
}

// YAML returns the record in pkger's form (as JSON does) written as YAML.
func YAML(st v1alpha1.Stack) ([]byte, error) {
	j, err := JSON(st)
	if err != nil {
		return nil, err
	}
	return jsonToYAML(j)
}

// jsonToYAML writes JSON as block-style YAML, keys in their order.
func jsonToYAML(j []byte) ([]byte, error) {
	nodes, err := pkgfile.DecodeBytes(nil, "value.json", j)
	if err != nil {
		return nil, err
	}
	return pkgfile.EncodeYAML(nodes)
}

// Table returns the record for people: the stack, then a line per resource.
func Table(st v1alpha1.Stack) string {
	var b strings.Builder
	s := st.Status
	fmt.Fprintf(&b, "Stack %s (id %s), created %s, updated %s, revision %d\n\n",
		st.Metadata.Name, orNone(s.StackID), orNone(string(s.CreatedAt)), orNone(string(s.UpdatedAt)), s.Revision)
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tKIND\tNAMESPACE\tNAME\tASSOCIATIONS")
	for _, r := range s.Resources {
		var assoc []string
		for _, a := range r.Associations {
			assoc = append(assoc, a.String())
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Kind, orNone(r.Namespace), r.PkgName, orNone(strings.Join(assoc, ",")))
	}
	_ = w.Flush()
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Export writes the package's tracked resources as one package file (YAML
// or JSON), without the bookkeeping annotations kpt and kustomize add.
func Export(rl *resourcelist.ResourceList, enc pkgfile.Encoding) ([]byte, error) {
	var nodes []*yaml.RNode
	for _, it := range rl.Select(Tracked) {
		n := it.Node().Copy()
		if err := clean(n); err != nil {
			return nil, fmt.Errorf("cannot export %s: %w", it.Header(), err)
		}
		nodes = append(nodes, n)
	}
	if enc == pkgfile.JSON {
		return pkgfile.EncodeJSON(nodes)
	}
	return pkgfile.EncodeYAML(nodes)
}

// clean drops the bookkeeping annotations, and annotations left empty.
func clean(n *yaml.RNode) error {
	annotations := fieldpath.Path{"metadata", "annotations"}
	for _, a := range fieldpath.Keys(fieldpath.Lookup(n, annotations)) {
		if !kptfile.IsBookkeeping(a) {
			continue
		}
		if err := fieldpath.Remove(n, annotations.Child(a)); err != nil {
			return err
		}
	}
	if len(fieldpath.Keys(fieldpath.Lookup(n, annotations))) == 0 {
		return fieldpath.Remove(n, annotations)
	}
	return nil
}
