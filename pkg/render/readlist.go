package render

import (
	"bytes"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/parallel"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// List is a ResourceList as kyaml's kio.ByteReader reads one: its items
// (the list's own nodes), and the values of its functionConfig and results
// fields (nil when absent).
type List struct {
	Items          []*yaml.RNode
	FunctionConfig *yaml.RNode
	Results        *yaml.RNode
}

// ReadList reads a ResourceList a function wrote, giving what kyaml's
// kio.ByteReader gives: the nodes yaml.v3 makes of the whole list. The items
// are built by pkg/resourcelist's scan (held to yaml.v3 node for node), on
// every core; input that is not plainly one ResourceList (several
// documents, "\r", other root keys, no items or functionConfig) is read by
// the ByteReader itself, errors included.
func ReadList(in []byte) (List, error) {
	if l, ok := scanList(in); ok {
		return l, nil
	}
	r := &kio.ByteReader{Reader: bytes.NewReader(in)}
	items, err := r.Read()
	return List{Items: items, FunctionConfig: r.FunctionConfig, Results: r.Results}, err
}

// scanList reads a plain ResourceList with pkg/resourcelist, or says it
// cannot.
func scanList(in []byte) (List, bool) {
	keys, ok := rootKeys(in)
	if !ok || !keys["items"] && !keys["functionConfig"] {
		return List{}, false
	}
	rl, err := resourcelist.Parse(in)
	if err != nil {
		return List{}, false
	}
	l := List{FunctionConfig: rl.FunctionConfig(), Results: rl.InputResults()}
	if keys["functionConfig"] && l.FunctionConfig == nil { // null: the ByteReader keeps the node
		return List{}, false
	}
	its := rl.Select(func(resourcelist.Header) bool { return true })
	l.Items = make([]*yaml.RNode, len(its))
	parallel.Do(len(its), parallel.Workers(len(its), ParallelItems), func(_, i int) { l.Items[i] = its[i].Node() })
	for _, n := range l.Items {
		if n.YNode().Kind != yaml.MappingNode {
			return List{}, false
		}
	}
	return l, true
}

// rootKeys returns the keys at the start of the lines of in, when in is
// one document in block style whose root keys are a ResourceList's (no
// metadata, which the ByteReader reads, no document markers or
// directives, no "\r").
func rootKeys(in []byte) (map[string]bool, bool) {
	if bytes.IndexByte(in, '\r') >= 0 {
		return nil, false
	}
	keys := map[string]bool{}
	for line := range bytes.Lines(in) {
		switch {
		case len(line) == 0 || line[0] == ' ' || line[0] == '\n' || line[0] == '-' && !bytes.HasPrefix(line, []byte("---")):
			continue
		case line[0] == '#':
			continue
		}
		key, _, ok := bytes.Cut(line, []byte(":"))
		switch k := string(key); {
		case !ok:
			return nil, false
		case k == "apiVersion" || k == "kind" || k == "items" || k == "functionConfig" || k == "results":
			keys[k] = true
		default:
			return nil, false
		}
	}
	return keys, true
}
