package resourcelist

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/emit"
	"github.com/kptkit/kptkit/pkg/result"
)

// writeResults plans the results section: the input's results, then the
// ones recorded, sorted.
func (rl *ResourceList) writeResults(p *emit.Plan) error {
	res := rl.resultNodes()
	if len(res) == 0 {
		return nil
	}
	p.Text("results:\n")
	for _, n := range res {
		if err := p.Item(n, 1, 0); err != nil {
			return err
		}
	}
	return nil
}

func (rl *ResourceList) resultNodes() []*yaml.Node {
	out := append([]*yaml.Node(nil), rl.oldResult...)
	for _, r := range rl.Results() {
		out = append(out, resultNode(r))
	}
	return out
}

// resultNode builds a result's YAML by hand: encoding the struct with
// yaml.v3 costs more than the rest of a function for thousands of results.
func resultNode(r result.Result) *yaml.Node {
	m := mapping("message", r.Message, "severity", string(r.Severity))
	if ref := r.ResourceRef; ref != nil {
		m.Content = append(m.Content, str("resourceRef"),
			mapping("apiVersion", ref.APIVersion, "kind", ref.Kind, "name", ref.Name, "namespace", ref.Namespace))
	}
	if r.Field != nil && r.Field.Path != "" {
		m.Content = append(m.Content, str("field"), mapping("path", r.Field.Path))
	}
	if f := r.File; f != nil && f.Path != "" {
		file := mapping("path", f.Path)
		if f.Index != 0 {
			file.Content = append(file.Content, str("index"),
				&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.Itoa(f.Index)})
		}
		m.Content = append(m.Content, str("file"), file)
	}
	return m
}

// mapping returns a mapping of the non-empty string values among key, value
// pairs (the message is always kept).
func mapping(kv ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" || kv[i] == "message" {
			m.Content = append(m.Content, str(kv[i]), str(kv[i+1]))
		}
	}
	return m
}
