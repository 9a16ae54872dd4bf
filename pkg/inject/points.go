package inject

import (
	"cmp"
	"slices"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// Values of the kpt.dev/config-injection annotation.
const (
	Required = "required"
	Optional = "optional"
)

// annotationsField is where results about a point's annotation point.
const annotationsField = "metadata.annotations"

// ConditionType is the Kptfile condition type of the injection point of the
// given kind and name: config.injection.<Kind>.<name>.
func ConditionType(kind, name string) string {
	return "config.injection." + kind + "." + name
}

// point is an injection point: a package item annotated
// kpt.dev/config-injection, and what became of it.
type point struct {
	item     *resourcelist.Item
	h        resourcelist.Header
	condType string
	required bool

	// source is the object injected, nil when none was.
	source *Object
	// causes say why nothing was injected.
	causes []string
}

// isPoint reports whether an item is an injection point.
func isPoint(h resourcelist.Header) bool {
	_, ok := h.Annotations[kptfile.AnnotationConfigInjection]
	return ok
}

// findPoints returns the package's injection points in input order and an
// error for every invalid annotation value, every point without a kind or a
// name, and every condition type two points share.
func findPoints(rl *resourcelist.ResourceList) ([]*point, []result.Result) {
	var (
		pts []*point
		rs  []result.Result
	)
	for _, it := range rl.Select(isPoint) {
		h := it.Header()
		p := &point{item: it, h: h, condType: ConditionType(h.Kind, h.Name)}
		switch v := h.Annotations[kptfile.AnnotationConfigInjection]; v {
		case Required:
			p.required = true
		case Optional:
		default:
			rs = append(rs, it.Errorf(annotationsField, "%s: %s/%s has invalid %q annotation value of %q",
				h.Where(), h.Kind, h.Name, kptfile.AnnotationConfigInjection, v))
		}
		if h.Kind == "" || h.Name == "" {
			rs = append(rs, it.Errorf("metadata.name", "%s: %s is an injection point (%q) without a kind or metadata.name: its condition type %q names no object",
				h.Where(), h, kptfile.AnnotationConfigInjection, p.condType))
		}
		pts = append(pts, p)
	}
	return pts, append(rs, duplicates(pts)...)
}

// duplicates reports every condition type that two points share, pairing
// each point with the previous one of its type in file order (Porch pairs
// them in the random order of a map; this order is stable).
func duplicates(pts []*point) []result.Result {
	sorted := slices.Clone(pts)
	slices.SortStableFunc(sorted, func(a, b *point) int {
		return cmp.Or(cmp.Compare(a.h.Path, b.h.Path), cmp.Compare(a.h.Index, b.h.Index), cmp.Compare(a.h.Position, b.h.Position))
	})
	var rs []result.Result
	seen := map[string]*point{}
	for _, p := range sorted {
		if p.h.Kind == "" || p.h.Name == "" {
			continue // reported as nameless
		}
		if prev, ok := seen[p.condType]; ok {
			rs = append(rs, p.item.Errorf("metadata.name", "duplicate injection conditionType %q (%s and %s)",
				p.condType, prev.h.Where(), p.h.Where()))
		}
		seen[p.condType] = p
	}
	return rs
}
