package discover

import (
	"strings"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/api/porch"
	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
)

// builtin are the API groups every Kubernetes cluster serves: using them
// needs no package. Groups served by add-ons that merely share the k8s.io
// suffix (gateway.networking.k8s.io, snapshot.storage.k8s.io,
// metrics.k8s.io) are not among them.
var builtin = map[string]bool{
	"":                             true,
	"admissionregistration.k8s.io": true,
	"apiextensions.k8s.io":         true,
	"apiregistration.k8s.io":       true,
	"apps":                         true,
	"authentication.k8s.io":        true,
	"authorization.k8s.io":         true,
	"autoscaling":                  true,
	"batch":                        true,
	"certificates.k8s.io":          true,
	"coordination.k8s.io":          true,
	"discovery.k8s.io":             true,
	"events.k8s.io":                true,
	"extensions":                   true,
	"flowcontrol.apiserver.k8s.io": true,
	"internal.apiserver.k8s.io":    true,
	"networking.k8s.io":            true,
	"node.k8s.io":                  true,
	"policy":                       true,
	"rbac.authorization.k8s.io":    true,
	"resource.k8s.io":              true,
	"scheduling.k8s.io":            true,
	"storage.k8s.io":               true,
	"storagemigration.k8s.io":      true,
}

// Builtin reports whether every cluster serves the API group.
func Builtin(group string) bool { return builtin[group] }

// Tooling reports whether a group is kpt's, kustomize's or kptkit's own:
// its items configure tools and are never applied to a cluster.
func Tooling(group string) bool {
	switch group {
	case kptfile.Group, v1alpha1.Group, "config.kubernetes.io", "kustomize.config.k8s.io":
		return true
	}
	return strings.HasSuffix(group, "."+kptfile.Group) && group != porch.Group && group != porch.ConfigGroup
}
