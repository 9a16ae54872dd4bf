package pkgupdate

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// triple is one resource in the old upstream, the downstream and the new
// upstream (nil where it is missing).
type triple struct{ original, local, updated *yaml.RNode }

// mergeResources merges the resources of one package as kpt's resource-merge
// does (kyaml's Merge3 with kpt's matcher and handler): resources matched by
// group, kind, merge-comment namespace and name, and file; one added on
// either side kept; one deleted upstream removed unless changed downstream;
// one deleted downstream left deleted; the rest merged with merge3 (except
// those the upstream did not change: the downstream's, as they are, where
// kyaml's merge would quote strings YAML 1.1 reads otherwise and drop null
// fields). The
// output is in kyaml's order (downstream's first, then the old upstream's,
// then the new upstream's), which the writer sorts within each file.
func mergeResources(original, local, updated []*yaml.RNode) ([]*yaml.RNode, []Conflict, error) {
	triples, err := match(original, local, updated)
	if err != nil {
		return nil, nil, err
	}
	var out []*yaml.RNode
	var conflicts []Conflict
	for _, t := range triples {
		switch {
		case t.original == nil && t.updated == nil: // added downstream
			out = append(out, t.local)
		case t.original == nil && t.local == nil: // added upstream
			out = append(out, t.updated)
		case t.updated == nil && t.local == nil: // deleted on both sides
		case t.updated == nil: // deleted upstream: kept when changed downstream
			if !unchanged(t.original, t.local) {
				out = append(out, t.local)
			}
		case t.local == nil: // deleted downstream
		case t.original != nil && text(t.original) == text(t.updated): // not changed upstream
			out = append(out, t.local)
		default:
			n, found, err := merge3Resource(t)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range found {
				conflicts = append(conflicts, Conflict{
					Ref: refOf(t.local), File: pathOf(t.local), Field: f.path.String(),
					Original: f.original, Local: f.local, Upstream: f.upstream,
				})
			}
			if n != nil {
				out = append(out, n)
			}
		}
	}
	return out, conflicts, nil
}

// match groups the three versions' resources by kpt's identity. A resource
// found twice in one version is an error in kyaml's words.
func match(original, local, updated []*yaml.RNode) ([]*triple, error) {
	var list []*triple
	byID := map[string]*triple{}
	for _, side := range []struct {
		name  string
		items []*yaml.RNode
		slot  func(*triple) **yaml.RNode
	}{
		{"local", local, func(t *triple) **yaml.RNode { return &t.local }},
		{"original upstream", original, func(t *triple) **yaml.RNode { return &t.original }},
		{"updated upstream", updated, func(t *triple) **yaml.RNode { return &t.updated }},
	} {
		for _, n := range side.items {
			id, err := identity(n)
			if err != nil {
				return nil, fmt.Errorf("the %s package: %w", side.name, err)
			}
			t := byID[id]
			if t == nil {
				t = &triple{}
				byID[id] = t
				list = append(list, t)
			}
			if *side.slot(t) != nil {
				return nil, fmt.Errorf("found duplicate %q resources in file %q, please refer to \"update\" documentation for the fix: %s",
					side.name, pathOf(n), describe(n))
			}
			*side.slot(t) = n
		}
	}
	return list, nil
}

// merge3Resource merges one resource with kyaml's merge3, as kpt does,
// recording the fields both sides changed differently.
func merge3Resource(t *triple) (*yaml.RNode, []found, error) {
	rec := newRecorder(bookkeeping, t.local, t.original, t.updated)
	n, err := walk.Walker{
		Visitor: rec, VisitKeysAsScalars: true,
		Sources: []*yaml.RNode{t.local, t.original, t.updated},
	}.Walk()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot merge %s in %s: %w", describe(t.local), pathOf(t.local), err)
	}
	return n, rec.found, nil
}

// bookkeeping reports fields that are not the resource's content: the
// annotations the readers and kpt's merge comments add.
func bookkeeping(p fieldPath) bool {
	return len(p) == 3 && p[0] == "metadata" && p[1] == "annotations" &&
		(kptapi.IsBookkeeping(p[2]) || p[2] == kptapi.AnnotationUpstreamIdentifier)
}

// uncompared are the annotations kpt strips before it compares a resource
// deleted upstream with the downstream's.
var uncompared = []string{
	kptapi.AnnotationPath, kptapi.AnnotationIndex, kptapi.AnnotationInternalPath, kptapi.AnnotationInternalIndex,
	"config.kubernetes.io/merge-source", "internal.config.kubernetes.io/annotations-migration-resource-id",
	"cnrm.cloud.google.com/blueprint",
}

// unchanged reports whether the downstream's resource is the old upstream's,
// as kpt compares them: the same YAML text, the readers' annotations aside.
func unchanged(original, local *yaml.RNode) bool {
	return text(original) == text(local)
}

func text(n *yaml.RNode) string {
	c := kptpkg.Copy([]*yaml.RNode{n})[0]
	for _, a := range uncompared {
		_ = c.PipeE(yaml.ClearAnnotation(a))
	}
	s, err := c.String()
	if err != nil {
		return "\x00" + err.Error()
	}
	return s
}
