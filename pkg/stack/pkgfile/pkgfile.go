// Package pkgfile reads package files in pkger's encodings into resources
// and writes resources back as one package file: a file system and a file
// name go in (YAML with one or more documents, JSON with an array of objects
// or one object, or Jsonnet evaluating to either, through the Evaluator the
// caller gives), resources come out as
// kyaml nodes; EncodeYAML and EncodeJSON turn resources into package file
// bytes in the layout kpt writes.
package pkgfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// Encoding is a package file's encoding.
type Encoding int

// The encodings pkger reads.
const (
	YAML Encoding = iota
	JSON
	Jsonnet
)

func (e Encoding) String() string {
	return [...]string{"yaml", "json", "jsonnet"}[e]
}

// EncodingOf tells a file's encoding by its extension (.json, .jsonnet,
// .libsonnet, .yaml, .yml), else by its first character: `[` or `{` is
// JSON, anything else YAML.
func EncodingOf(name string, data []byte) Encoding {
	switch strings.ToLower(path.Ext(name)) {
	case ".json":
		return JSON
	case ".jsonnet", ".libsonnet":
		return Jsonnet
	case ".yaml", ".yml":
		return YAML
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return JSON
	}
	return YAML
}

// Evaluator evaluates Jsonnet programs: a program's file name (its imports
// are relative to it) and text go in, the JSON it evaluates to comes out.
// A program may run for ever or take all memory: kptkit evaluates in a
// child process within time and memory limits (cmd/kptkit), with
// pkgfile/jsonnet's VM.
type Evaluator interface {
	Evaluate(name string, src []byte) ([]byte, error)
}

// errNoJsonnet: a Jsonnet file where no evaluator was given.
var errNoJsonnet = errors.New("Jsonnet is not evaluated here")

// Decode reads the package file name of fsys; a Jsonnet file is evaluated
// by jsonnet (nil: refused). Messages call the file shown (the path the
// user gave), or name when shown is "".
func Decode(fsys fs.FS, name, shown string, jsonnet Evaluator) ([]*yaml.RNode, error) {
	if shown == "" {
		shown = name
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot read %s: no such file or directory", shown)
		}
		return nil, fmt.Errorf("cannot read %s: %w", shown, err)
	}
	return decode(jsonnet, name, shown, data)
}

// DecodeBytes reads a package file's content; name tells its encoding. A
// Jsonnet program is evaluated by jsonnet (nil: refused).
func DecodeBytes(jsonnet Evaluator, name string, data []byte) ([]*yaml.RNode, error) {
	return decode(jsonnet, name, name, data)
}

func decode(jsonnet Evaluator, name, shown string, data []byte) ([]*yaml.RNode, error) {
	enc := EncodingOf(name, data)
	if enc == Jsonnet {
		if jsonnet == nil {
			return nil, fmt.Errorf("cannot evaluate %s: %w", shown, errNoJsonnet)
		}
		out, err := jsonnet.Evaluate(name, data)
		if err != nil {
			return nil, fmt.Errorf("cannot evaluate %s: %w", shown, err)
		}
		data = out
	}
	nodes, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s as %s: %w", shown, enc, err)
	}
	if enc != YAML {
		for _, n := range nodes {
			blockStyle(n.YNode())
		}
	}
	return nodes, nil
}

// parse reads the documents of a YAML stream (JSON is one document); a
// document that is a list holds resources, one that is a mapping is one.
// A key written twice in a mapping is an error, as yaml.v3 has it.
func parse(data []byte) (out []*yaml.RNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("cannot parse: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for doc := 0; ; doc++ {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return out, kptpkg.DuplicateKeys(nil, out)
		} else if err != nil {
			return nil, err
		}
		root := &n
		if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
			root = root.Content[0]
		}
		resources, err := resourcesOf(root, doc)
		if err != nil {
			return nil, err
		}
		out = append(out, resources...)
	}
}

func resourcesOf(root *yaml.Node, doc int) ([]*yaml.RNode, error) {
	switch {
	case root.Kind == yaml.MappingNode:
		return []*yaml.RNode{yaml.NewRNode(root)}, nil
	case root.Kind == yaml.SequenceNode:
		out := make([]*yaml.RNode, 0, len(root.Content))
		for i, e := range root.Content {
			if e.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("document %d: element %d is %s, not a resource (a mapping)", doc, i, describe(e))
			}
			out = append(out, yaml.NewRNode(e))
		}
		return out, nil
	case root.Kind == yaml.ScalarNode && root.Tag == yaml.NodeTagNull, root.Kind == yaml.DocumentNode:
		return nil, nil // an empty document
	}
	return nil, fmt.Errorf("document %d is %s: want a resource (a mapping) or a list of them", doc, describe(root))
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("the scalar %q", n.Value)
}

// blockStyle turns JSON's flow style into the block style kpt writes, and
// drops the quotes strings do not need: those a YAML 1.1 reader (kubectl)
// would take for another type (`"yes"`, `"3"`) keep them.
func blockStyle(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
		n.Style &^= yaml.FlowStyle
		for _, c := range n.Content {
			blockStyle(c)
		}
	case yaml.ScalarNode:
		if n.Tag == yaml.NodeTagString && !yaml.IsValueNonString(n.Value) {
			n.Style &^= yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle
		}
	}
}

// EncodeYAML writes resources as one multi-document YAML package file, in
// kpt's layout (2-space indent, compact lists).
func EncodeYAML(nodes []*yaml.RNode) ([]byte, error) {
	var b bytes.Buffer
	for i, n := range nodes {
		if i > 0 {
			b.WriteString("---\n")
		}
		enc := yaml.NewEncoder(&b)
		if err := encode(enc, n.YNode()); err != nil {
			return nil, fmt.Errorf("cannot encode resource %d: %w", i, err)
		}
	}
	return b.Bytes(), nil
}

func encode(enc *yaml.Encoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	if err := enc.Encode(n); err != nil {
		return err
	}
	return enc.Close()
}

// Convert reads a package file of any of pkger's encodings (Jsonnet
// evaluated by jsonnet) and returns it as package YAML; messages call the
// file shown (name when "").
func Convert(fsys fs.FS, name, shown string, jsonnet Evaluator) ([]byte, error) {
	nodes, err := Decode(fsys, name, shown, jsonnet)
	if err != nil {
		return nil, err
	}
	return EncodeYAML(nodes)
}
