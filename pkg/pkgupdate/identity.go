package pkgupdate

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptapi "github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/result"
)

// addMergeComment marks a resource as kpt's AddMergeComment does: the line
// comment `kpt-merge: <namespace>/<name>` on its metadata key (kept when
// there is one: it names the resource as its upstream does) and the
// upstream-identifier annotation derived from it. Resources without a name,
// namespace or labels, and those whose metadata kyaml cannot read, are left
// alone, as kpt leaves them.
func addMergeComment(n *yaml.RNode) error {
	meta, err := n.GetMeta()
	if err != nil || (meta.Name == "" && meta.Namespace == "" && len(meta.Labels) == 0) {
		return nil
	}
	mf := n.Field(yaml.MetadataField)
	if mf == nil {
		return nil
	}
	key := mf.Key.YNode()
	if !strings.Contains(key.LineComment, kptapi.MergeComment) {
		key.LineComment = fmt.Sprintf("%s %s/%s", kptapi.MergeComment, meta.Namespace, meta.Name)
	}
	ns, name := meta.Namespace, meta.Name
	if nn := mergeName(key.LineComment); nn != nil {
		ns, name = nn[0], nn[1]
	}
	switch {
	case ns == "":
		ns = "default"
	case meta.Namespace == resid.TotallyNotANamespace:
		ns = "~C"
	}
	group, _ := resid.ParseGroupVersion(meta.APIVersion)
	id := strings.Join([]string{group, meta.Kind, ns, name}, "|")
	return n.PipeE(yaml.SetAnnotation(kptapi.AnnotationUpstreamIdentifier, id))
}

// mergeName returns the namespace and name a `kpt-merge:` comment names, or
// nil when the comment is not one.
func mergeName(comment string) []string {
	c := strings.TrimSpace(strings.TrimPrefix(comment, "#"))
	rest, ok := strings.CutPrefix(c, kptapi.MergeComment)
	if !ok {
		return nil
	}
	nn := strings.SplitN(strings.TrimSpace(rest), "/", 2)
	if len(nn) != 2 {
		return nil
	}
	return nn
}

// identity is how kpt's resource-merge matches a resource across the old
// upstream, the new upstream and the downstream: group, kind, the namespace
// and name of its merge comment (else its own) and its file.
func identity(n *yaml.RNode) (string, error) {
	meta, err := n.GetMeta()
	if err != nil {
		return "", fmt.Errorf("%s in %s: cannot read its metadata: %w", describe(n), pathOf(n), err)
	}
	ns, name := meta.Namespace, meta.Name
	if mf := n.Field(yaml.MetadataField); mf != nil {
		if nn := mergeName(mf.Key.YNode().LineComment); nn != nil {
			ns, name = nn[0], nn[1]
		}
	}
	group, _ := resid.ParseGroupVersion(meta.APIVersion)
	return strings.Join([]string{group, meta.Kind, ns, name, meta.Annotations[kioutil.PathAnnotation]}, "\x00"), nil
}

// refOf names a resource in a conflict or an error.
func refOf(n *yaml.RNode) result.ResourceRef {
	return result.ResourceRef{APIVersion: n.GetApiVersion(), Kind: n.GetKind(), Name: n.GetName(), Namespace: n.GetNamespace()}
}

// describe names a resource as kptkit's messages do: Kind/name or
// Kind/namespace/name.
func describe(n *yaml.RNode) string { return refString(refOf(n)) }

func refString(r result.ResourceRef) string {
	switch {
	case r.Name == "":
		return r.Kind + " (no name)"
	case r.Namespace != "":
		return r.Kind + "/" + r.Namespace + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// pathOf returns the file an item was read from.
func pathOf(n *yaml.RNode) string {
	p, _ := kptpkg.FileAnnotations(n)
	return p
}
