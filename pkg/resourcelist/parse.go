package resourcelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Parse reads a ResourceList. It fails only when the input is not YAML or not
// a ResourceList, or when it writes a key twice in one mapping (a
// *DuplicateKeysError, as yaml.v3 refuses it when it decodes into a Go
// value); other problems with single items are left to the functions.
//
// The items are read lazily: Parse finds each item's entry and reads its
// header with a light scan, and builds its nodes only when a function asks
// for them (Node, Edit). Where the scan cannot be sure of what yaml.v3 would
// read, the item, or the whole list, is parsed by yaml.v3 at once. The
// ResourceList keeps in, and writes untouched items from it: do not change
// it afterwards.
func Parse(in []byte) (*ResourceList, error) {
	if rl := parseLazy(in); rl != nil {
		return rl, nil
	}
	return parseFull(in)
}

// parseFull reads a ResourceList whole with yaml.v3: every item's nodes at
// once.
func parseFull(in []byte) (rl *ResourceList, err error) {
	root, err := parseDoc(in)
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the input is not a ResourceList: expected a mapping with kind ResourceList")
	}
	rn := yaml.NewRNode(root)
	if err := checkKind(readHeader(rn, -1)); err != nil {
		return nil, err
	}
	rl = &ResourceList{src: in, doc: root}
	if f := rn.Field("items"); f != nil {
		switch f.Value.YNode().Kind {
		case yaml.SequenceNode:
			content := f.Value.YNode().Content
			slab := make([]Item, len(content))
			rl.items = make([]*Item, len(content))
			for i, n := range content {
				slab[i] = Item{rl: rl, node: yaml.NewRNode(n), pos: i}
				rl.items[i] = &slab[i]
			}
		case yaml.ScalarNode:
			if f.Value.YNode().Tag != yaml.NodeTagNull {
				return nil, errors.New("the ResourceList's items is not a list")
			}
		default:
			return nil, errors.New("the ResourceList's items is not a list")
		}
	}
	if err := duplicateError(duplicateKeys(root)); err != nil {
		return nil, err
	}
	rl.setRoot(rn.Field("functionConfig"), rn.Field("results"))
	rl.layoutNodes()
	return rl, nil
}

// parseDoc parses a single YAML document and returns its root node.
func parseDoc(in []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("cannot parse the input as YAML: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(in))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the input is empty: expected a ResourceList")
		}
		return nil, fmt.Errorf("cannot parse the input as YAML: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("the input holds more than one YAML document: expected a single ResourceList")
	}
	root = &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	return root, nil
}

// checkKind fails unless the header is a ResourceList's.
func checkKind(h Header) error {
	if h.Kind != Kind || (h.APIVersion != APIVersion && h.APIVersion != "config.kubernetes.io/v1alpha1") {
		return fmt.Errorf("the input is not a ResourceList: got apiVersion %q kind %q, expected apiVersion %q kind %q",
			h.APIVersion, h.Kind, APIVersion, Kind)
	}
	return nil
}

// setRoot keeps the functionConfig and the results the input holds.
func (rl *ResourceList) setRoot(fnConfig, results *yaml.MapNode) {
	if fnConfig != nil && !yaml.IsMissingOrNull(fnConfig.Value) {
		rl.fnConfig = fnConfig.Value
	}
	if results != nil {
		rl.resultsIn = results.Value
	}
	if results != nil && results.Value.YNode().Kind == yaml.SequenceNode {
		rl.oldResult = results.Value.YNode().Content
	}
}
