package resourcelist

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/result"
)

// DuplicateKeysError is Parse's error for a ResourceList that writes a key
// twice in one mapping, anywhere in it: yaml.v3 refuses that when it
// decodes into a Go value, while kyaml keeps the first key silently and a
// reader may take either value. Each key is a result naming the item (or
// the functionConfig), its file and the field, in yaml.v3's words; the
// lines are the ResourceList's.
type DuplicateKeysError struct {
	Results result.List
}

func (e *DuplicateKeysError) Error() string {
	msgs := make([]string, len(e.Results))
	for i, r := range e.Results {
		msgs[i] = r.String()
	}
	return "the input writes a mapping key twice: " + strings.Join(msgs, "; ")
}

// lines is what a message about an item adds: its lines are the list's,
// not its file's.
const lines = " (lines of the input ResourceList)"

// duplicateKeys returns the results for the keys written twice in the
// ResourceList root (a mapping): in its own keys, in its items, in its
// functionConfig, in its other values.
func duplicateKeys(root *yaml.Node) result.List {
	var rs result.List
	c := root.Content
	keys := make([]*yaml.Node, len(c)) // the keys alone
	for i := 0; i < len(c); i += 2 {
		keys[i] = c[i]
	}
	for _, d := range decode.Duplicates(&yaml.Node{Kind: yaml.MappingNode, Content: keys}, "") {
		rs = append(rs, result.Errorf("ResourceList: %v", d))
	}
	for i := 0; i+1 < len(c); i += 2 {
		switch v := c[i+1]; {
		case c[i].Value == "items" && v.Kind == yaml.SequenceNode:
			for pos, it := range v.Content {
				rs = append(rs, itemDuplicates(it, pos)...)
			}
		case c[i].Value == "functionConfig":
			h := readHeader(yaml.NewRNode(v), -1)
			for _, d := range decode.Duplicates(v, "") {
				rs = append(rs, h.Attach(result.Errorf("functionConfig %s: %v%s", h, d, lines).WithField(d.Path)))
			}
		default:
			for _, d := range decode.Duplicates(v, c[i].Value) {
				rs = append(rs, result.Errorf("ResourceList: %v", d).WithField(d.Path))
			}
		}
	}
	return rs
}

// itemDuplicates returns the results for the keys written twice in the
// item n, at position pos.
func itemDuplicates(n *yaml.Node, pos int) result.List {
	dups := decode.Duplicates(n, "")
	if len(dups) == 0 {
		return nil
	}
	h := readHeader(yaml.NewRNode(n), pos)
	item := h.String()
	if h.Path != "" {
		item = h.Path + ": " + item
	}
	rs := make(result.List, len(dups))
	for i, d := range dups {
		rs[i] = h.Attach(result.Errorf("%s: %v%s", item, d, lines).WithField(d.Path))
	}
	return rs
}

// hasDuplicates reports whether a key is written twice in a mapping of the
// tree at n.
func hasDuplicates(n *yaml.Node) bool {
	return len(decode.Duplicates(n, "")) > 0
}

// duplicateError returns the error for the results, or nil.
func duplicateError(rs result.List) error {
	if len(rs) == 0 {
		return nil
	}
	return &DuplicateKeysError{Results: rs.Sorted()}
}
