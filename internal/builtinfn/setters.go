package builtinfn

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// applySettersDirect is executeFramework(ApplySetters, in) without the
// work that leaves the list as it was: a ResourceList goes in, the list
// kyaml's framework.Execute writes and the processor's error come out. The
// catalog's processor (its config reading and messages, its filter redone
// on the nodes as setterFilter) runs on the items as parsed, and only on
// the items with a setter comment (the filter changes nothing else and
// reports nothing else). kyaml's
// annotation migration is skipped for a list it leaves unchanged
// (settled), and the results are written by pkg/resourcelist's emitter
// where it takes them, instead of yaml.v3 marshalling, parsing and encoding
// them. Any other list takes executeFramework's path from the parsed items
// (TestApplySettersCorpus, FuzzApplySetters hold the two to the same bytes).
func applySettersDirect(in []byte) ([]byte, error) {
	l, err := render.ReadList(in)
	if err != nil {
		return nil, fmt.Errorf("failed to read ResourceList input: %w", err)
	}
	if !settled(l.Items) {
		return executeList(applySettersNodes, l)
	}
	var tagged []*yaml.RNode
	for _, n := range l.Items {
		if hasSetter(n.YNode()) {
			tagged = append(tagged, n)
		}
	}
	rl := framework.ResourceList{Items: tagged, FunctionConfig: l.FunctionConfig}
	retErr := applySettersNodes.Process(&rl)
	res, ok := resultsNode(rl.Results)
	if !ok {
		// results the emitter may not write as yaml.v3 would: the
		// framework's path, whose migration leaves these items as they are
		return writeFramework(l, rl.Results, retErr)
	}
	out, err := render.EncodeList(l.Items, l.FunctionConfig, nil)
	if err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(out)
	if !resourcelist.Emit(b, res) {
		return writeFramework(l, rl.Results, retErr)
	}
	return b.Bytes(), retErr
}

// hasSetter reports whether a node or one below it carries a setter
// comment, the only nodes apply-setters reads: a line comment starting
// with "# kpt-set: " (applysetters.SetterCommentIdentifier), on a scalar
// or on a key or flow sequence.
func hasSetter(n *yaml.Node) bool {
	if strings.HasPrefix(n.LineComment, "# kpt-set: ") {
		return true
	}
	for _, c := range n.Content {
		if hasSetter(c) {
			return true
		}
	}
	return false
}

// resultsNode is the ResourceList's results field, {results: [...]}, as
// yaml.v3 reads what kyaml writes for apply-setters' results (message,
// severity, field.path, file.path), or false for results with anything
// else or a string yaml.v3 would write otherwise than plain or quoted as
// the emitter chooses (writeFramework writes those).
func resultsNode(rs framework.Results) (*yaml.Node, bool) {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
	for _, r := range rs {
		if r == nil || r.ResourceRef != nil || len(r.Tags) > 0 {
			return nil, false
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
		fields := []struct {
			key, value string
		}{{"message", r.Message}, {"severity", string(r.Severity)}}
		for _, f := range fields {
			if f.value != "" && !addString(m, f.key, f.value) {
				return nil, false
			}
		}
		if r.Field != nil && (r.Field.CurrentValue != nil || r.Field.ProposedValue != nil) || r.File != nil && r.File.Index != 0 {
			return nil, false
		}
		if r.Field != nil && !addPath(m, "field", r.Field.Path) || r.File != nil && !addPath(m, "file", r.File.Path) {
			return nil, false
		}
		if len(m.Content) == 0 {
			return nil, false
		}
		seq.Content = append(seq.Content, m)
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("results"), seq}}, len(seq.Content) > 0
}

// addPath adds key: {path: p} to m, key: {} for no path.
func addPath(m *yaml.Node, key, p string) bool {
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
	if p == "" {
		v.Style = yaml.FlowStyle
	} else if !addString(v, "path", p) {
		return false
	}
	m.Content = append(m.Content, str(key), v)
	return true
}

// addString adds key: s to m, for a string yaml.v3's marshaller writes
// with no style of its own (it quotes strings that read as another type in
// YAML 1.2, and 1.1's booleans and base 60 numbers): one line of printable
// ASCII that starts with a letter or a slash and is not a boolean or null.
func addString(m *yaml.Node, key, s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] == '/') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
			return false
		}
	}
	m.Content = append(m.Content, str(key), str(s))
	return true
}

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s}
}

// writeFramework writes the list with the processor's results as
// executeList does.
func writeFramework(l render.List, rs framework.Results, retErr error) ([]byte, error) {
	results, err := marshalResults(rs, l.Results)
	if err != nil {
		return nil, err
	}
	out, err := render.EncodeList(l.Items, l.FunctionConfig, results)
	if err != nil {
		return nil, err
	}
	return out, retErr
}

// The annotations kyaml's framework migrates: each internal one and its
// legacy twin.
var annotationPairs = [][2]string{
	{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation},
	{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation},
	{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation}, //nolint:staticcheck // kyaml migrates it
}

// settled reports whether kyaml's annotation migration around a function
// (kio.PreprocessResourcesForInternalAnnotationMigration, the function,
// kio.ReconcileInternalAnnotations) and yaml.ClearEmptyAnnotations leave
// every item as it was, whatever apply-setters does: each item has one
// metadata mapping with one non-empty annotations mapping (the migration
// adds its id there and takes it away, no empty one to clear); of each
// internal annotation and its legacy twin both are there, once, with the
// same non-empty string and no comment (apply-setters sets only commented
// values), or neither is (nothing to copy, reconcile or drop); and the
// migration's own id is not there.
func settled(items []*yaml.RNode) bool {
	for _, n := range items {
		annos := only(only(n.YNode(), yaml.MetadataField), yaml.AnnotationsField)
		if annos == nil || len(annos.Content) == 0 || count(annos, kioutil.InternalAnnotationsMigrationResourceIDAnnotation) > 0 {
			return false
		}
		for _, p := range annotationPairs {
			a, b := only(annos, string(p[0])), only(annos, string(p[1]))
			switch {
			case a == nil && b == nil && count(annos, string(p[0]))+count(annos, string(p[1])) == 0:
			case a == nil || b == nil || !plainValue(a) || !plainValue(b) || a.Value != b.Value:
				return false
			}
		}
	}
	return true
}

// only returns the value of m's one key named key when it is a mapping
// (for metadata and annotations) or a scalar, or nil: m is no mapping, the
// key is not there or is there twice, or its key or value is not plain.
func only(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode || m.Anchor != "" || count(m, key) != 1 {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value != key {
			continue
		}
		if k.Kind != yaml.ScalarNode || k.Tag != yaml.NodeTagString || v.Anchor != "" ||
			v.Kind != yaml.ScalarNode && (v.Kind != yaml.MappingNode || v.Tag != yaml.NodeTagMap) {
			return nil
		}
		return v
	}
	return nil
}

// count is how many of m's keys read key (kyaml matches keys by value).
func count(m *yaml.Node, key string) int {
	n := 0
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			n++
		}
	}
	return n
}

// plainValue: a non-empty string scalar with no comment.
func plainValue(v *yaml.Node) bool {
	return v.Kind == yaml.ScalarNode && v.Tag == yaml.NodeTagString && v.Value != "" &&
		v.LineComment == "" && v.HeadComment == "" && v.FootComment == ""
}
