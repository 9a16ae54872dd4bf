package inject_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/result"
)

// TestResults compares the whole results of a run: message, severity,
// resourceRef and file. A result's resourceRef is its point, which kpt
// prints before the message, so a message names the point only where its
// sentence needs it: a filled point's info says the file and the source,
// not the point again (issue 22, friction 7).
func TestResults(t *testing.T) {
	t.Parallel()
	target := &result.ResourceRef{APIVersion: "v1", Kind: "ConfigMap", Name: "target"}
	file := &result.File{Path: "target.yaml"}
	tests := []struct {
		name string
		in   []byte
		want result.List
	}{
		{"filled", resourceList(pv("", "name: src"), kf, withPath(cm("target", "", point, "x"), "target.yaml"), cm("src", "", inCluster, "new")),
			result.List{{Message: `target.yaml: injected resource "src" from cluster`, Severity: result.SeverityInfo, ResourceRef: target, File: file}}},
		{"filled, an item without a path (kustomize)", resourceList(pv("", "name: src"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app", cm("target", "", point, "x"), cm("src", "", inCluster, "new")),
			result.List{{Message: `item 1: injected resource "src" from cluster`, Severity: result.SeverityInfo, ResourceRef: target}}},
		{"optional, not filled", resourceList(pv("", "name: other"), kf, withPath(cm("target", "", "kpt.dev/config-injection: optional", "x"), "target.yaml"), cm("src", "", inCluster, "new")),
			result.List{{Message: "target.yaml: optional injection point ConfigMap/target was not filled: " + inject.MessageNoMatch, Severity: result.SeverityInfo, ResourceRef: target, File: file}}},
		{"required, not filled: the object is in another namespace", resourceList(pv("team-a", "name: src"), kf, withPath(cm("target", "", point, "x"), "target.yaml"), cm("src", "team-b", inCluster, "new")),
			result.List{
				{Message: `target.yaml: in-cluster ConfigMap "src" is in namespace team-b, not in "team-a": objects of other namespaces are never injected`, Severity: result.SeverityWarning, ResourceRef: target, File: file},
				{Message: "target.yaml: required injection point ConfigMap/target was not filled: no in-cluster resources of type v1.ConfigMap", Severity: result.SeverityWarning, ResourceRef: target, File: file},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, got := krmfn.Process(inject.Function, tc.in, krmtest.Env(krmtest.Clock, nil))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

// withPath gives an item's metadata the path annotation.
func withPath(item, path string) string {
	return strings.Replace(item, "  annotations:\n", "  annotations:\n    config.kubernetes.io/path: "+path+"\n", 1)
}
