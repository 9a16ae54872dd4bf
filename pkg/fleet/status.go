package fleet

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
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

// status returns the status of every set of the plan and of the given
// variants, as Porch would report it: sets first, then variants, each in
// the plan's order. A
// variant's downstreamTargets name its package (<repo>/<package>), in git
// its PackageRevision, with the last commit kptkit made there.
func (r *runner) status(jobs []*job) []*yaml.RNode {
	p := r.plan
	var out []*yaml.RNode
	for _, s := range p.sets {
		out = append(out, object(porch.TypePackageVariantSet.APIVersion, porch.TypePackageVariantSet.Kind, s.name, s.namespace, setConditions(s), nil))
	}
	for _, j := range jobs {
		var targets []string
		if j.v.Outcome != Failed {
			targets = append(targets, j.path)
		}
		rec := Record{}
		if r.opts.Revisions != nil {
			rec, targets = r.record(j), nil
			if j.v.Outcome != Failed && j.v.Revision != "" {
				targets = append(targets, j.v.Revision)
			} else if rec.Revision != "" {
				targets = append(targets, rec.Revision) // kept for the next run's check
			}
		}
		o := object(porch.TypePackageVariant.APIVersion, porch.TypePackageVariant.Kind, j.name, j.namespace, variantConditions(j), targets)
		if rec.Commit != "" {
			_ = annotate(o, v1alpha1.AnnotationCommit, rec.Commit)
		}
		out = append(out, o)
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
	case v.Outcome == Failed, v.Outcome == Waiting:
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
