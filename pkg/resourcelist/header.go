package resourcelist

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
	"github.com/kptkit/kptkit/pkg/result"
)

// Header is what identifies an item: its type, name, file, labels and
// annotations. It is cheap to read and is what selections match on.
type Header struct {
	APIVersion  string
	Kind        string
	Name        string
	Namespace   string
	Labels      map[string]string
	Annotations map[string]string
	// Path is the file the item comes from ("" when unknown, as under kustomize).
	Path string
	// Index is the item's document index within its file.
	Index int
	// Position is the item's position in the ResourceList (-1 for new items).
	Position int
}

// Group returns the API group ("" for the core group).
func (h Header) Group() string {
	if g, _, ok := strings.Cut(h.APIVersion, "/"); ok {
		return g
	}
	return ""
}

// Version returns the API version without the group.
func (h Header) Version() string {
	if _, v, ok := strings.Cut(h.APIVersion, "/"); ok {
		return v
	}
	return h.APIVersion
}

// Is reports whether the item has the given apiVersion and kind.
func (h Header) Is(apiVersion, kind string) bool {
	return h.APIVersion == apiVersion && h.Kind == kind
}

// InCluster reports whether the item is an object of the management cluster.
func (h Header) InCluster() bool {
	return h.Annotations[v1alpha1.AnnotationInCluster] == "true"
}

// LocalConfig reports whether the item is local configuration, not meant for
// a cluster.
func (h Header) LocalConfig() bool {
	return h.Annotations[kptfile.AnnotationLocalConfig] == "true"
}

// IsKptfile reports whether the item is a Kptfile (of any package).
func (h Header) IsKptfile() bool {
	return h.Kind == kptfile.Kind && h.Group() == kptfile.Group
}

// IsRootKptfile reports whether the item is the Kptfile of the package root:
// at path "Kptfile", or without a path (as kustomize passes items).
func (h Header) IsRootKptfile() bool {
	return h.IsKptfile() && (h.Path == kptfile.FileName || h.Path == "")
}

// Ref returns the item as a result's resourceRef.
func (h Header) Ref() result.ResourceRef {
	return result.ResourceRef{APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Name, Namespace: h.Namespace}
}

// String names the item for messages: Kind/name, Kind/namespace/name, or its
// position when it has no name.
func (h Header) String() string {
	kind := h.Kind
	if kind == "" {
		kind = "item"
	}
	switch {
	case h.Name == "":
		return fmt.Sprintf("%s at position %d", kind, h.Position)
	case h.Namespace != "":
		return kind + "/" + h.Namespace + "/" + h.Name
	default:
		return kind + "/" + h.Name
	}
}

// Where names the item's file for messages: its path, or its position in the
// ResourceList when it has none.
func (h Header) Where() string {
	if h.Path != "" {
		return h.Path
	}
	if h.Position < 0 {
		return "new item"
	}
	return fmt.Sprintf("item %d", h.Position)
}

// Attach returns r pointing at this item: its resourceRef and file.
func (h Header) Attach(r result.Result) result.Result {
	return r.WithRef(h.Ref()).WithFile(h.Path, h.Index)
}

func readHeader(n *yaml.RNode, pos int) Header {
	h := Header{Position: pos}
	if n == nil || n.YNode().Kind != yaml.MappingNode {
		return h
	}
	// One pass over the item's top-level fields and its metadata: this runs
	// for every item a selection looks at.
	// A key written twice counts once, the first, as kyaml reads it (such
	// an item is refused when read, but a header names it).
	var seen uint8
	c := n.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		switch c[i].Value {
		case "apiVersion":
			if first(&seen, 0) {
				h.APIVersion = scalarValue(c[i+1])
			}
		case "kind":
			if first(&seen, 1) {
				h.Kind = scalarValue(c[i+1])
			}
		case "metadata":
			if first(&seen, 2) {
				readMetadata(c[i+1], &h)
			}
		}
	}
	h.place()
	return h
}

// first marks the key number k as seen and reports whether it was not yet.
func first(seen *uint8, k uint) bool {
	was := *seen&(1<<k) != 0
	*seen |= 1 << k
	return !was
}

// place sets the item's file and index from its annotations: kpt's
// internal ones first.
func (h *Header) place() {
	h.Path = h.Annotations[kptfile.AnnotationInternalPath]
	if h.Path == "" {
		h.Path = h.Annotations[kptfile.AnnotationPath]
	}
	idx := h.Annotations[kptfile.AnnotationInternalIndex]
	if idx == "" {
		idx = h.Annotations[kptfile.AnnotationIndex]
	}
	h.Index, _ = strconv.Atoi(idx)
}

func readMetadata(md *yaml.Node, h *Header) {
	if md.Kind != yaml.MappingNode {
		return
	}
	var seen uint8
	c := md.Content
	for i := 0; i+1 < len(c); i += 2 {
		switch c[i].Value {
		case "name":
			if first(&seen, 0) {
				h.Name = scalarValue(c[i+1])
			}
		case "namespace":
			if first(&seen, 1) {
				h.Namespace = scalarValue(c[i+1])
			}
		case "labels":
			if first(&seen, 2) {
				h.Labels = stringMap(c[i+1])
			}
		case "annotations":
			if first(&seen, 3) {
				h.Annotations = stringMap(c[i+1])
			}
		}
	}
}

// scalarValue returns a non-null scalar's value, or "".
func scalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == yaml.NodeTagNull {
		return ""
	}
	return n.Value
}

// stringMap returns the scalar entries of a mapping.
func stringMap(n *yaml.Node) map[string]string {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	c := n.Content
	m := make(map[string]string, len(c)/2)
	for i := len(c)/2*2 - 2; i >= 0; i -= 2 { // backwards: the first of a key written twice counts
		if c[i+1].Kind == yaml.ScalarNode {
			m[c[i].Value] = c[i+1].Value
		}
	}
	return m
}

// scannedHeader returns the header the scan read of the item at position
// pos.
func scannedHeader(s *scan.Item, pos int) Header {
	h := Header{
		APIVersion:  s.APIVersion(),
		Kind:        s.Kind(),
		Name:        s.Name(),
		Namespace:   s.Namespace(),
		Labels:      s.Labels(),
		Annotations: s.Annotations(),
		Position:    pos,
	}
	h.place()
	return h
}

// HeaderOf reads the header of a node that is not an item of the list, such
// as the functionConfig.
func HeaderOf(n *yaml.RNode) Header { return readHeader(n, -1) }
