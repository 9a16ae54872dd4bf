package discover_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/deps/discover"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

const items = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata: {name: app}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings}
- apiVersion: cert-manager.io/v1
  kind: Certificate
  metadata: {name: web-tls}
- apiVersion: cert-manager.io/v1
  kind: Certificate
  metadata: {name: api-tls}
- apiVersion: cert-manager.io/v1
  kind: Issuer
  metadata:
    name: local
    annotations: {config.kubernetes.io/local-config: "true"}
- apiVersion: monitoring.coreos.com/v1
  kind: ServiceMonitor
  metadata:
    name: in-cluster
    annotations: {kptkit.dev/in-cluster: "true"}
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: widgets.example.com}
  spec:
    group: example.com
    names: {kind: Widget, plural: widgets}
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w}
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: web}
- apiVersion: fn.kptkit.dev/v1alpha1
  kind: PackageInstall
  metadata: {name: db}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: operator}
  rules:
  - apiGroups: ["", apps]
    resources: [pods/log, deployments]
  - apiGroups: [example.com, cert-manager.io]
    resources: [widgets/status, certificates, certificaterequests]
  - apiGroups: ["*"]
    resources: [secrets]
  - apiGroups: [ipam.resource.nephio.org]
    resources: ["*", networkinstances]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata: {name: broken, namespace: web}
  rules: {apiGroups: [x]}
`

func TestFind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  discover.Options
		needs []string
		warns []string
	}{{
		name: "APIs and RBAC",
		opts: discover.Options{APIs: true, RBAC: true},
		needs: []string{
			"Certificate/web-tls: cert-manager.io/v1 Certificate",
			"HTTPRoute/web: gateway.networking.k8s.io/v1 HTTPRoute",
			`ClusterRole/operator rules[1]: resource "certificates" of group example.com (any of certificates)`,
			`ClusterRole/operator rules[1]: resource "certificates" of group cert-manager.io (any of certificates)`,
			`ClusterRole/operator rules[1]: resource "certificaterequests" of group example.com (any of certificaterequests)`,
			`ClusterRole/operator rules[1]: resource "certificaterequests" of group cert-manager.io (any of certificaterequests)`,
			`ClusterRole/operator rules[3]: resource "networkinstances" of group ipam.resource.nephio.org`,
		},
		warns: []string{
			`warning: "*" names every API group: the packages the rule needs cannot be told, so it is not used for discovery (ClusterRole/operator, field rules[2].apiGroups)`,
			`warning: "*" names every resource of group "ipam.resource.nephio.org": the packages the rule needs cannot be told, so it is not used for discovery (ClusterRole/operator, field rules[3].resources)`,
			"warning: item 11: Role/web/broken: cannot read its rules for discovery: rules: must be a list, not a mapping",
		},
	}, {
		name:  "APIs only",
		opts:  discover.Options{APIs: true},
		needs: []string{"Certificate/web-tls: cert-manager.io/v1 Certificate", "HTTPRoute/web: gateway.networking.k8s.io/v1 HTTPRoute"},
	}, {
		name: "neither",
	}, {
		name:  "skipping items",
		opts:  discover.Options{APIs: true, Skip: func(h resourcelist.Header) bool { return h.Kind == "HTTPRoute" }},
		needs: []string{"Certificate/web-tls: cert-manager.io/v1 Certificate"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rl, err := resourcelist.Parse([]byte(items)) // each its own: reading headers caches them
			if err != nil {
				t.Fatal(err)
			}
			needs, rs := discover.Find(rl, tt.opts)
			var gotNeeds, gotWarns []string
			for _, n := range needs {
				s := fmt.Sprintf("%s: %s", n.By(), n.API)
				if n.AnyOf != "" {
					s += " (any of " + n.AnyOf + ")"
				}
				gotNeeds = append(gotNeeds, s)
			}
			for _, r := range rs {
				gotWarns = append(gotWarns, r.String())
			}
			if diff := cmp.Diff(tt.needs, gotNeeds); diff != "" {
				t.Errorf("needs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warns, gotWarns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuiltinAndTooling(t *testing.T) {
	t.Parallel()
	var got []string
	for _, g := range []string{"", "apps", "rbac.authorization.k8s.io", "gateway.networking.k8s.io", "metrics.k8s.io", "cert-manager.io"} {
		got = append(got, fmt.Sprint(discover.Builtin(g)))
	}
	for _, g := range []string{"kpt.dev", "fn.kpt.dev", "fn.kptkit.dev", "porch.kpt.dev", "config.porch.kpt.dev"} {
		got = append(got, fmt.Sprint(discover.Tooling(g)))
	}
	want := []string{"true", "true", "true", "false", "false", "false", "true", "true", "true", "false", "false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
