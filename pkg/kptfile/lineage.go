package kptfile

import (
	"errors"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// Lineage is what a package's Kptfile records of where the package comes
// from: its upstream and the revision it was last cloned or updated at.
// Either may be nil.
type Lineage struct {
	Upstream *kptapi.Upstream
	Lock     *kptapi.UpstreamLock
}

// LineageOf decodes the upstream and upstreamLock of a Kptfile; fields of
// the wrong shape are one error naming each.
func LineageOf(kf *yaml.RNode) (Lineage, error) {
	var l Lineage
	var errs []decode.Error
	if f := kf.Field("upstream"); f != nil && !yaml.IsMissingOrNull(f.Value) {
		l.Upstream = &kptapi.Upstream{}
		errs = append(errs, decode.Into(f.Value.YNode(), l.Upstream, decode.Options{}, "upstream")...)
	}
	if f := kf.Field("upstreamLock"); f != nil && !yaml.IsMissingOrNull(f.Value) {
		l.Lock = &kptapi.UpstreamLock{}
		errs = append(errs, decode.Into(f.Value.YNode(), l.Lock, decode.Options{}, "upstreamLock")...)
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return Lineage{}, errors.New(strings.Join(msgs, "; "))
	}
	return l, nil
}

// SetLineage sets the upstream and upstreamLock of a Kptfile (lock nil:
// none) as kpt's writer marshals them, changing only the values that
// differ, so that comments survive; new fields are for Order to place.
func SetLineage(kf *yaml.RNode, up kptapi.Upstream, lock *kptapi.UpstreamLock) error {
	n, err := MarshalLineage(up, lock)
	if err != nil {
		return err
	}
	return n.Set(kf)
}

// LineageNodes are an upstream and upstreamLock marshalled once
// (MarshalLineage), to be set on many Kptfiles.
type LineageNodes struct {
	up, lock *yaml.Node // lock nil: none
}

// MarshalLineage marshals an upstream and upstreamLock (nil: none) as kpt's
// writer does, for LineageNodes.Set.
func MarshalLineage(up kptapi.Upstream, lock *kptapi.UpstreamLock) (LineageNodes, error) {
	var n LineageNodes
	n.up = &yaml.Node{}
	if err := n.up.Encode(up); err != nil {
		return LineageNodes{}, err
	}
	if lock != nil {
		n.lock = &yaml.Node{}
		if err := n.lock.Encode(lock); err != nil {
			return LineageNodes{}, err
		}
	}
	return n, nil
}

// Set sets the Kptfile's upstream and upstreamLock as SetLineage does, with
// copies of the marshalled nodes (the Kptfile shares none of them).
func (n LineageNodes) Set(kf *yaml.RNode) error {
	if n.up == nil {
		return errors.New("no lineage marshalled")
	}
	assign(kf.YNode(), "upstream", yaml.CopyYNode(n.up))
	if n.lock == nil {
		return fieldpath.Remove(kf, fieldpath.Path{"upstreamLock"})
	}
	assign(kf.YNode(), "upstreamLock", yaml.CopyYNode(n.lock))
	return nil
}

// Assign makes the field key of the mapping m hold v as kpt's writer
// marshals it: values that differ are replaced, fields v lacks are
// removed, new fields are added (for Order to place), and what does not
// change keeps its nodes.
func Assign(m *yaml.Node, key string, v any) error {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return err
	}
	assign(m, key, &n)
	return nil
}

func assign(m *yaml.Node, key string, v *yaml.Node) {
	have := fieldpath.Field(m, key)
	switch {
	case have == nil:
		setNode(m, key, v)
	case have.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
		kept := have.Content[:0]
		for i := 0; i+1 < len(have.Content); i += 2 {
			if fieldpath.Field(v, have.Content[i].Value) != nil {
				kept = append(kept, have.Content[i], have.Content[i+1])
			}
		}
		have.Content = kept
		for i := 0; i+1 < len(v.Content); i += 2 {
			assign(have, v.Content[i].Value, v.Content[i+1])
		}
	case have.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode:
		if have.Value != v.Value || have.ShortTag() != v.ShortTag() {
			have.Value, have.Tag, have.Style = v.Value, v.Tag, v.Style
		}
	default:
		setNode(m, key, v)
	}
}

// setNode sets the field key of the mapping m to v.
func setNode(m *yaml.Node, key string, v *yaml.Node) {
	_ = fieldpath.Set(yaml.NewRNode(m), fieldpath.Path{key}, yaml.NewRNode(v))
}
