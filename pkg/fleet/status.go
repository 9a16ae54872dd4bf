package fleet

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
)

// Porch's condition types and texts.
const (
	conditionStalled = "Stalled"
	conditionReady   = "Ready"
	messageValid     = "all validation checks passed"
)

// condition is a metav1.Condition without its clock: status is the same
// for the same run.
type condition struct{ typ, status, reason, message string }

// status returns the status of every set and variant of the plan, as Porch
// would report it: sets first, then variants, each in the plan's order.
func status(p *plan) []*yaml.RNode {
	var out []*yaml.RNode
	for _, s := range p.sets {
		out = append(out, object(porch.TypePackageVariantSet.APIVersion, porch.TypePackageVariantSet.Kind, s.name, s.namespace, setConditions(s), nil))
	}
	for _, j := range p.jobs {
		var targets []string
		if j.v.Outcome != Failed {
			targets = append(targets, j.path)
		}
		out = append(out, object(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind, j.pv.Metadata.Name, j.pv.Metadata.Namespace, variantConditions(j), targets))
	}
	return out
}

func setConditions(s *setPlan) []condition {
	switch {
	case len(s.stalled) > 0:
		msg := strings.Join(s.stalled, "; ")
		return []condition{{conditionStalled, "True", s.stalledReason, msg}, {conditionReady, "False", s.stalledReason, msg}}
	case len(s.targetErrs) > 0:
		return []condition{{conditionStalled, "False", "Valid", messageValid}, {conditionReady, "False", "UnexpectedError", strings.Join(s.targetErrs, "; ")}}
	}
	return []condition{{conditionStalled, "False", "Valid", messageValid}, {conditionReady, "True", "Reconciled", "package variants successfully reconciled"}}
}

func variantConditions(j *job) []condition {
	v := j.v
	switch {
	case v.stalled:
		return []condition{{conditionStalled, "True", "ValidationError", v.Message}, {conditionReady, "False", "Error", "invalid packagevariant object"}}
	case v.Outcome == Failed:
		return []condition{{conditionStalled, "False", "Valid", messageValid}, {conditionReady, "False", v.Reason, v.Message}}
	}
	return []condition{{conditionStalled, "False", "Valid", messageValid}, {conditionReady, "True", "NoErrors", "successfully ensured downstream package variant"}}
}

// object builds a status object: apiVersion, kind, name, namespace and
// status (conditions; downstreamTargets for a variant).
func object(apiVersion, kind, name, namespace string, conds []condition, targets []string) *yaml.RNode {
	md := mapping("name", name)
	if namespace != "" {
		md.Content = append(md.Content, str("namespace"), str(namespace))
	}
	cs := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range conds {
		cs.Content = append(cs.Content, mapping("type", c.typ, "status", c.status, "reason", c.reason, "message", c.message))
	}
	st := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("conditions"), cs}}
	if kind == porch.KindVariant {
		ts := &yaml.Node{Kind: yaml.SequenceNode}
		for _, t := range targets {
			ts.Content = append(ts.Content, mapping("name", t))
		}
		if len(targets) == 0 {
			ts.Style = yaml.FlowStyle
		}
		st.Content = append(st.Content, str("downstreamTargets"), ts)
	}
	return yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("apiVersion"), str(apiVersion), str("kind"), str(kind), str("metadata"), md, str("status"), st,
	}})
}

func mapping(kv ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, str(kv[i]), str(kv[i+1]))
	}
	return m
}

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s}
}
