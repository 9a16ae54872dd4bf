package stack

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

// Summary is pkger's Summary of a package (its JSON field names and order,
// `summaryTask` included): every resource the apply would leave on record
// with its id, names, references and label associations, the label
// mappings, and the references without a value. Resources are kptkit's:
// the tracked resources of other kinds and API versions.
type Summary struct {
	Buckets               []SummaryResource     `json:"buckets"`
	Checks                []SummaryResource     `json:"checks"`
	Dashboards            []SummaryResource     `json:"dashboards"`
	NotificationEndpoints []SummaryResource     `json:"notificationEndpoints"`
	NotificationRules     []SummaryResource     `json:"notificationRules"`
	Labels                []SummaryResource     `json:"labels"`
	LabelMappings         []SummaryLabelMapping `json:"labelMappings"`
	MissingEnvs           []string              `json:"missingEnvRefs"`
	MissingSecrets        []string              `json:"missingSecrets"`
	Tasks                 []SummaryResource     `json:"summaryTask"`
	TelegrafConfigs       []SummaryResource     `json:"telegrafConfigs"`
	Variables             []SummaryResource     `json:"variables"`
	Resources             []SummaryResource     `json:"resources"`
}

// SummaryResource is one resource of a summary: pkger's SummaryIdentifier
// (kind, templateMetaName, envReferences), its id and name, and its label
// associations. apiVersion, namespace and associations (to other kinds
// than Label) are kptkit's.
type SummaryResource struct {
	Kind              string               `json:"kind"`
	MetaName          string               `json:"templateMetaName"`
	EnvReferences     []SummaryReference   `json:"envReferences"`
	ID                string               `json:"id"`
	APIVersion        string               `json:"apiVersion,omitempty"`
	Namespace         string               `json:"namespace,omitempty"`
	Name              string               `json:"name"`
	LabelAssociations []SummaryLabel       `json:"labelAssociations"`
	Associations      []SummaryAssociation `json:"associations,omitempty"`
}

// SummaryLabel is a label a resource is associated with (pkger's
// SummaryLabel).
type SummaryLabel struct {
	Kind          string             `json:"kind"`
	MetaName      string             `json:"templateMetaName"`
	EnvReferences []SummaryReference `json:"envReferences"`
	ID            string             `json:"id"`
	Name          string             `json:"name"`
	Properties    struct {
		Color       string `json:"color"`
		Description string `json:"description"`
	} `json:"properties"`
}

// SummaryAssociation is an association to another kind than Label.
type SummaryAssociation struct {
	Kind     string `json:"kind"`
	MetaName string `json:"templateMetaName"`
	ID       string `json:"id"`
}

// SummaryLabelMapping is pkger's summary of one association to a Label.
type SummaryLabelMapping struct {
	Status           string `json:"status,omitempty"`
	ResourceID       string `json:"resourceID"`
	ResourceMetaName string `json:"resourceTemplateMetaName"`
	ResourceName     string `json:"resourceName"`
	ResourceType     string `json:"resourceType"`
	LabelMetaName    string `json:"labelTemplateMetaName"`
	LabelName        string `json:"labelName"`
	LabelID          string `json:"labelID"`
}

// SummaryReference is one environment reference of a resource (pkger's
// SummaryReference): the field, the key, the value given (null when none)
// and the default (null when none).
type SummaryReference struct {
	Field        string `json:"resourceField"`
	EnvRefKey    string `json:"envRefKey"`
	ValType      string `json:"valueType"`
	Value        any    `json:"value"`
	DefaultValue any    `json:"defaultValue"`
}

// Summary returns the preview as pkger's Summary; env gives the values of
// environment references (as the apply had them).
func (p *Preview) Summary(env pkger.Env) Summary {
	s := Summary{
		Buckets: []SummaryResource{}, Checks: []SummaryResource{}, Dashboards: []SummaryResource{},
		NotificationEndpoints: []SummaryResource{}, NotificationRules: []SummaryResource{}, Labels: []SummaryResource{},
		LabelMappings: []SummaryLabelMapping{}, MissingEnvs: nonNil(p.MissingEnvRefs), MissingSecrets: nonNil(p.MissingSecrets),
		Tasks: []SummaryResource{}, TelegrafConfigs: []SummaryResource{}, Variables: []SummaryResource{}, Resources: []SummaryResource{},
	}
	groups := [...]*[]SummaryResource{&s.Resources, &s.Buckets, &s.Checks, &s.Dashboards, &s.Labels, &s.NotificationEndpoints,
		&s.NotificationRules, &s.Tasks, &s.TelegrafConfigs, &s.Variables}
	present := map[[2]string]Item{}
	for _, it := range p.Items {
		if it.Status != StatusRemove {
			present[[2]string{it.Entry.Kind, it.Entry.PkgName}] = it
		}
	}
	for _, it := range sortedItems(p.Items) {
		if it.Status == StatusRemove {
			continue
		}
		e := it.Entry
		f := familyOf(e.APIVersion, e.Kind)
		r := SummaryResource{Kind: e.Kind, MetaName: e.PkgName, EnvReferences: references(it.Refs, env), ID: e.ID,
			Name: displayName(it), LabelAssociations: []SummaryLabel{}}
		if f == famOther {
			r.APIVersion, r.Namespace = e.APIVersion, e.Namespace
		}
		for _, a := range e.Associations {
			target, ok := present[[2]string{a.Kind, a.PkgName}]
			if a.Kind == pkger.KindLabel && ok {
				r.LabelAssociations = append(r.LabelAssociations, summaryLabel(target, env))
			} else {
				r.Associations = append(r.Associations, SummaryAssociation{Kind: a.Kind, MetaName: a.PkgName, ID: target.Entry.ID})
			}
		}
		*groups[f] = append(*groups[f], r)
	}
	p.associations(func(status string, it Item, a v1alpha1.StackAssociation, target *Item) {
		if status == StatusRemove || a.Kind != pkger.KindLabel || target == nil {
			return // pkger's summary holds what the apply leaves
		}
		s.LabelMappings = append(s.LabelMappings, SummaryLabelMapping{Status: status, ResourceID: it.Entry.ID, ResourceMetaName: it.Entry.PkgName,
			ResourceName: displayName(it), ResourceType: resourceType(it.Entry), LabelMetaName: a.PkgName, LabelName: displayName(*target), LabelID: target.Entry.ID})
	})
	slices.SortStableFunc(s.LabelMappings, func(a, b SummaryLabelMapping) int {
		return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), cmp.Compare(a.ResourceMetaName, b.ResourceMetaName), cmp.Compare(a.LabelName, b.LabelName))
	})
	return s
}

// summaryLabel summarises a label an item is associated with.
func summaryLabel(l Item, env pkger.Env) SummaryLabel {
	out := SummaryLabel{Kind: l.Entry.Kind, MetaName: l.Entry.PkgName, EnvReferences: references(l.Refs, env), ID: l.Entry.ID, Name: displayName(l)}
	var content struct {
		Spec struct {
			Color       string `json:"color"`
			Description string `json:"description"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(l.New, &content) // a field of another type reads as empty, as pkger reads it
	out.Properties.Color, out.Properties.Description = content.Spec.Color, content.Spec.Description
	return out
}

// references summarises a resource's environment references.
func references(refs []pkger.Ref, env pkger.Env) []SummaryReference {
	out := []SummaryReference{}
	for _, r := range refs {
		if r.Env == "" {
			continue
		}
		sr := SummaryReference{Field: r.Field, EnvRefKey: r.Env}
		if v, ok := env[r.Env]; ok {
			sr.Value = v
		}
		if r.HasDefault {
			sr.DefaultValue = r.Default
		}
		out = append(out, sr)
	}
	return out
}

// JSON returns the summary as pkger writes it: indented by two spaces.
func (s Summary) JSON() ([]byte, error) { return indentJSON(s) }

// YAML returns the summary (as JSON has it) written as YAML.
func (s Summary) YAML() ([]byte, error) {
	j, err := s.JSON()
	if err != nil {
		return nil, err
	}
	return jsonToYAML(j)
}
