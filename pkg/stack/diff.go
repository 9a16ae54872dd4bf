package stack

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
	"github.com/kptkit/kptkit/pkg/stack/pkgfile"
	"github.com/kptkit/kptkit/pkg/textdiff"
)

// Diff is pkger's dry-run diff (its Diff type: JSON field names and order),
// each kind's resources sorted by name. Resources and Associations are
// kptkit's: the tracked resources of other kinds and API versions, and the
// associations to other kinds than Label.
type Diff struct {
	Buckets               []DiffResource     `json:"buckets"`
	Checks                []DiffResource     `json:"checks"`
	Dashboards            []DiffResource     `json:"dashboards"`
	Labels                []DiffResource     `json:"labels"`
	LabelMappings         []DiffLabelMapping `json:"labelMappings"`
	NotificationEndpoints []DiffResource     `json:"notificationEndpoints"`
	NotificationRules     []DiffResource     `json:"notificationRules"`
	Tasks                 []DiffResource     `json:"tasks"`
	Telegrafs             []DiffResource     `json:"telegrafConfigs"`
	Variables             []DiffResource     `json:"variables"`
	Resources             []DiffResource     `json:"resources"`
	Associations          []DiffAssociation  `json:"associations"`
}

// DiffResource is one resource of a diff: pkger's DiffIdentifier (id,
// stateStatus, templateMetaName, kind) and its new and old values. For
// pkger's kinds the values are pkger's: the name (spec.name, else
// metadata.name) and the spec's other fields; for other resources the
// whole content (apiVersion and namespace are kptkit's).
type DiffResource struct {
	ID          string          `json:"id"`
	StateStatus string          `json:"stateStatus"`
	MetaName    string          `json:"templateMetaName"`
	Kind        string          `json:"kind"`
	APIVersion  string          `json:"apiVersion,omitempty"`
	Namespace   string          `json:"namespace,omitempty"`
	New         json.RawMessage `json:"new"`
	Old         json.RawMessage `json:"old"`
}

// DiffLabelMapping is pkger's diff of one association to a Label.
type DiffLabelMapping struct {
	StateStatus   string `json:"stateStatus"`
	ResType       string `json:"resourceType"`
	ResID         string `json:"resourceID"`
	ResName       string `json:"resourceName"`
	ResMetaName   string `json:"resourceTemplateMetaName"`
	LabelID       string `json:"labelID"`
	LabelName     string `json:"labelName"`
	LabelMetaName string `json:"labelTemplateMetaName"`
}

// DiffAssociation is the diff of an association to another kind than
// Label (kptkit's), in the shape of a label mapping.
type DiffAssociation struct {
	StateStatus    string `json:"stateStatus"`
	Kind           string `json:"kind"`
	ResID          string `json:"resourceID"`
	ResMetaName    string `json:"resourceTemplateMetaName"`
	AssociatedKind string `json:"associatedKind"`
	AssociatedID   string `json:"associatedID"`
	AssociatedMeta string `json:"associatedTemplateMetaName"`
}

// family is where a kind goes in pkger's diff and summary, and its
// resource type in label mappings.
type family int

const (
	famOther family = iota
	famBucket
	famCheck
	famDashboard
	famLabel
	famEndpoint
	famRule
	famTask
	famTelegraf
	famVariable
)

// resourceTypes are pkger's resource types (influxdb.ResourceType), by
// family.
var resourceTypes = [...]string{"", "buckets", "checks", "dashboards", "labels", "notificationEndpoints", "notificationRules", "tasks", "telegrafs", "variables"}

// familyOf tells where a resource goes.
func familyOf(apiVersion, kind string) family {
	if apiVersion != pkger.APIVersion {
		return famOther
	}
	switch kind {
	case pkger.KindBucket:
		return famBucket
	case pkger.KindCheck, pkger.KindCheckDeadman, pkger.KindCheckThreshold:
		return famCheck
	case pkger.KindDashboard:
		return famDashboard
	case pkger.KindLabel:
		return famLabel
	case pkger.KindNotificationEndpoint, pkger.KindNotificationEndpointHTTP, pkger.KindNotificationEndpointPagerDuty, pkger.KindNotificationEndpointSlack:
		return famEndpoint
	case pkger.KindNotificationRule:
		return famRule
	case pkger.KindTask:
		return famTask
	case pkger.KindTelegraf:
		return famTelegraf
	case pkger.KindVariable:
		return famVariable
	}
	return famOther
}

// resourceType is a resource's type in label mappings: pkger's, or its kind.
func resourceType(e v1alpha1.StackResource) string {
	if f := familyOf(e.APIVersion, e.Kind); f != famOther {
		return resourceTypes[f]
	}
	return e.Kind
}

// Diff returns the preview as pkger's diff.
func (p *Preview) Diff() Diff {
	d := Diff{
		Buckets: []DiffResource{}, Checks: []DiffResource{}, Dashboards: []DiffResource{}, Labels: []DiffResource{},
		LabelMappings: []DiffLabelMapping{}, NotificationEndpoints: []DiffResource{}, NotificationRules: []DiffResource{},
		Tasks: []DiffResource{}, Telegrafs: []DiffResource{}, Variables: []DiffResource{}, Resources: []DiffResource{},
		Associations: []DiffAssociation{},
	}
	groups := [...]*[]DiffResource{&d.Resources, &d.Buckets, &d.Checks, &d.Dashboards, &d.Labels, &d.NotificationEndpoints,
		&d.NotificationRules, &d.Tasks, &d.Telegrafs, &d.Variables}
	for _, it := range sortedItems(p.Items) {
		e := it.Entry
		f := familyOf(e.APIVersion, e.Kind)
		r := DiffResource{ID: e.ID, StateStatus: it.Status, MetaName: e.PkgName, Kind: e.Kind,
			New: values(f, it.New), Old: values(f, it.Old)}
		if f == famOther {
			r.APIVersion, r.Namespace = e.APIVersion, e.Namespace
		}
		*groups[f] = append(*groups[f], r)
	}
	p.associations(func(status string, it Item, a v1alpha1.StackAssociation, target *Item) {
		id, targetName := "", a.PkgName
		if target != nil {
			id, targetName = target.Entry.ID, displayName(*target)
		}
		if a.Kind == pkger.KindLabel {
			d.LabelMappings = append(d.LabelMappings, DiffLabelMapping{StateStatus: status, ResType: resourceType(it.Entry), ResID: it.Entry.ID,
				ResName: displayName(it), ResMetaName: it.Entry.PkgName, LabelID: id, LabelName: targetName, LabelMetaName: a.PkgName})
			return
		}
		d.Associations = append(d.Associations, DiffAssociation{StateStatus: status, Kind: it.Entry.Kind, ResID: it.Entry.ID,
			ResMetaName: it.Entry.PkgName, AssociatedKind: a.Kind, AssociatedID: id, AssociatedMeta: a.PkgName})
	})
	slices.SortStableFunc(d.LabelMappings, func(a, b DiffLabelMapping) int {
		return cmp.Or(cmp.Compare(a.ResType, b.ResType), cmp.Compare(a.ResMetaName, b.ResMetaName), cmp.Compare(a.LabelName, b.LabelName))
	})
	slices.SortStableFunc(d.Associations, func(a, b DiffAssociation) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ResMetaName, b.ResMetaName), cmp.Compare(a.AssociatedKind, b.AssociatedKind), cmp.Compare(a.AssociatedMeta, b.AssociatedMeta))
	})
	return d
}

// associations calls fn for every association of the preview's resources:
// new (not on record), exists (on record and in the package) or remove
// (on record, gone from the package, or its resource removed). target is
// the resource it names, when known.
func (p *Preview) associations(fn func(status string, it Item, a v1alpha1.StackAssociation, target *Item)) {
	byName := map[[2]string]*Item{}
	for i := range p.Items {
		it := &p.Items[i]
		k := [2]string{it.Entry.Kind, it.Entry.PkgName}
		if _, ok := byName[k]; !ok || it.Status != StatusRemove {
			byName[k] = it
		}
	}
	for _, it := range p.Items {
		if it.Status != StatusRemove {
			for _, a := range it.Entry.Associations {
				status := StatusNew
				if slices.Contains(it.OldAssociations, a) {
					status = StatusExists
				}
				fn(status, it, a, byName[[2]string{a.Kind, a.PkgName}])
			}
		}
		for _, a := range it.OldAssociations {
			if it.Status == StatusRemove || !slices.Contains(it.Entry.Associations, a) {
				fn(StatusRemove, it, a, byName[[2]string{a.Kind, a.PkgName}])
			}
		}
	}
}

// values returns a resource's values in a diff: pkger's (the name and the
// spec's other fields) for its kinds, else the whole content; null for no
// content.
func values(f family, content json.RawMessage) json.RawMessage {
	if content == nil {
		return json.RawMessage("null")
	}
	if f == famOther {
		return content
	}
	var obj struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec map[string]json.RawMessage `json:"spec"`
	}
	if json.Unmarshal(content, &obj) != nil {
		return content
	}
	out := map[string]json.RawMessage{}
	for k, v := range obj.Spec {
		if k != "associations" && k != "association" {
			out[k] = v
		}
	}
	out["name"] = appendJSONString(nil, nameOf(obj.Metadata.Name, obj.Spec["name"]))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(out) != nil { // keys sorted
		return content
	}
	return bytes.TrimSpace(b.Bytes())
}

// nameOf is pkger's display name: spec.name when it is a non-empty
// string, else metadata.name.
func nameOf(metaName string, specName json.RawMessage) string {
	var s string
	if json.Unmarshal(specName, &s) == nil && s != "" {
		return s
	}
	return metaName
}

// displayName is an item's display name (pkger's identity name).
func displayName(it Item) string {
	content := it.New
	if content == nil {
		content = it.Old
	}
	var obj struct {
		Spec struct {
			Name json.RawMessage `json:"name"`
		} `json:"spec"`
	}
	if familyOf(it.Entry.APIVersion, it.Entry.Kind) == famOther || json.Unmarshal(content, &obj) != nil {
		return it.Entry.PkgName
	}
	return nameOf(it.Entry.PkgName, obj.Spec.Name)
}

// JSON returns the diff as pkger writes it (`influx apply --json`):
// indented by two spaces.
func (d Diff) JSON() ([]byte, error) { return indentJSON(d) }

// indentJSON encodes v as indented JSON without escaping <, > and &.
func indentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("cannot encode JSON: %w", err)
	}
	return pkgfile.Indent(bytes.TrimSpace(b.Bytes()))
}

// Unified returns the preview as a unified diff of the resources'
// contents as YAML (each resource a file named Kind/name, its
// associations a comment at its end), in package order and the removed
// resources last; "" when nothing would change.
func (p *Preview) Unified() string {
	var b strings.Builder
	for _, it := range p.Items {
		b.WriteString(it.Unified())
	}
	return b.String()
}

// Unified returns the item's unified diff, "" when it would not change.
func (it Item) Unified() string {
	from, to := "a/"+it.ref(), "b/"+it.ref()
	var old, new string
	if it.Status != StatusNew {
		old = contentText(it.Old, it.OldAssociations)
	} else {
		from = "/dev/null"
	}
	if it.Status != StatusRemove {
		new = contentText(it.New, it.Entry.Associations)
	} else {
		to = "/dev/null"
	}
	return textdiff.Unified(from, to, old, new)
}

// contentText renders a content as YAML, its associations a comment after
// it. A resource on record without a last-applied content shows as a
// comment saying so.
func contentText(content json.RawMessage, assoc []v1alpha1.StackAssociation) string {
	var b strings.Builder
	if content == nil {
		b.WriteString("# no last-applied content on record\n")
	} else if nodes, err := pkgfile.DecodeBytes(nil, "content.json", content); err == nil {
		if y, err := pkgfile.EncodeYAML(nodes); err == nil {
			b.Write(y)
		}
	}
	if len(assoc) > 0 {
		var names []string
		for _, a := range assoc {
			names = append(names, a.String())
		}
		fmt.Fprintf(&b, "# associations: %s\n", strings.Join(names, ", "))
	}
	return b.String()
}
