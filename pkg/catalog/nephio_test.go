package catalog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/catalog"
	"github.com/kptkit/kptkit/pkg/deps"
	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
	"github.com/kptkit/kptkit/pkg/resourcelist"
	"github.com/kptkit/kptkit/pkg/result"
)

// nephioRepos are the Nephio catalog's folders as the Porch Repositories
// its PackageVariants name (catalog-<dir>-<subdir>, and blueprints-infra-gcp
// for infra/gcp).
var nephioRepos = []struct{ name, dir string }{
	{"catalog-distros-gcp", "distros/gcp"},
	{"catalog-distros-sandbox", "distros/sandbox"},
	{"catalog-infra-baremetal", "infra/baremetal"},
	{"catalog-infra-capi", "infra/capi"},
	{"blueprints-infra-gcp", "infra/gcp"},
	{"catalog-nephio-core", "nephio/core"},
	{"catalog-nephio-optional", "nephio/optional"},
	{"catalog-workloads-free5gc", "workloads/free5gc"},
	{"catalog-workloads-oai", "workloads/oai"},
	{"catalog-workloads-ric", "workloads/ric"},
	{"catalog-workloads-tools", "workloads/tools"},
}

// readNephio reads the corpus's folders, one per repository.
func readNephio(tb testing.TB) map[string]kptpkg.Files {
	tb.Helper()
	root := corpus.Nephio(tb)
	out := map[string]kptpkg.Files{}
	for _, r := range nephioRepos {
		files, err := kptpkg.Read(os.DirFS(filepath.Join(root, r.dir)))
		if err != nil {
			tb.Fatal(err)
		}
		out[r.name] = files
	}
	return out
}

// indexNephio indexes every repository of the corpus.
func indexNephio(repos map[string]kptpkg.Files) ([]v1alpha1.CatalogPackage, []result.Result) {
	var (
		pkgs []v1alpha1.CatalogPackage
		rs   []result.Result
	)
	for _, r := range nephioRepos {
		p, more := catalog.Index(catalog.FolderRepo(r.name, repos[r.name]), nil)
		pkgs, rs = append(pkgs, p...), append(rs, more...)
	}
	return pkgs, rs
}

// nephioStack asks for the two packages a Nephio management cluster is
// built around, and names the providers of the API groups several catalog
// packages provide (the corpus ships Porch's APIs in porch,
// nephio-mgmt/porch and porch-cert-manager-webhook, cert-manager's in
// cert-manager and nephio-mgmt/cert-manager, the resource backend's in
// resource-backend and nephio-mgmt/resource-backend; a parent package
// provides what its subpackages do).
const nephioStack = `apiVersion: fn.kptkit.dev/v1alpha1
kind: PackageInstall
metadata:
  name: nephio-workload-cluster
  annotations:
    config.kubernetes.io/path: stack.yaml
spec:
  package: nephio-workload-cluster
---
apiVersion: fn.kptkit.dev/v1alpha1
kind: PackageInstall
metadata:
  name: nephio-controllers
  annotations:
    config.kubernetes.io/path: stack.yaml
spec:
  package: nephio-mgmt/nephio-controllers
`

const nephioConfig = `apiVersion: fn.kptkit.dev/v1alpha1
kind: ResolveDeps
metadata:
  name: resolve-deps
downstreamRepo: mgmt
providers:
  config.porch.kpt.dev: porch
  porch.kpt.dev: porch
  cert-manager.io: cert-manager
  inv.nephio.org: resource-backend
  ipam.resource.nephio.org: resource-backend
  vlan.resource.nephio.org: resource-backend
`

// TestNephioCorpusPlan indexes the Nephio catalog (its folders, one
// version each) and resolves nephio-workload-cluster and
// nephio-controllers against it. The plan and its reasons are the golden
// file testdata/nephio/plan.yaml, reviewed by hand; below, what each
// dependency is from, checked against the plan.
func TestNephioCorpusPlan(t *testing.T) {
	pkgs, _ := indexNephio(readNephio(t))
	items := nodesOf(t, pkgs)
	for _, doc := range strings.Split(nephioStack, "---\n") {
		items = append(items, parse(t, doc))
	}
	rl := resourcelist.FromNodes(items, parse(t, nephioConfig))
	krmfn.Apply(deps.Function, rl, krmtest.Env(krmtest.Clock, nil))
	plans := rl.Select(func(h resourcelist.Header) bool { return h.Kind == v1alpha1.KindInstallPlan })
	if len(plans) != 1 {
		t.Fatalf("no plan: %v", rl.Results())
	}
	var out strings.Builder
	out.WriteString(fieldpath.Lookup(plans[0].Node(), fieldpath.Path{"status"}).MustString())
	out.WriteString("results:\n")
	for _, r := range rl.Results() {
		if r.Severity != result.SeverityInfo {
			fmt.Fprintf(&out, "- %s: %s\n", r.Severity, r.Message)
		}
	}
	golden(t, filepath.Join("testdata", "nephio", "plan.yaml"), out.String())

	// What each package of the plan is there for: the first thing the plan
	// names that needs it.
	from := map[string]string{
		// the two requests
		"nephio-workload-cluster":        "PackageInstall/nephio-workload-cluster",
		"nephio-mgmt/nephio-controllers": "PackageInstall/nephio-controllers",
		// the PackageVariants nephio-workload-cluster holds (workspaceName: main: the latest)
		"cluster-capi-kind":      "nephio-workload-cluster (PackageVariant/example-cluster in pv-cluster.yaml)",
		"configsync":             "nephio-workload-cluster (PackageVariant/example-configsync in pv-configsync.yaml)",
		"kindnet":                "nephio-workload-cluster (PackageVariant/example-kindnet in pv-kindnet.yaml)",
		"local-path-provisioner": "nephio-workload-cluster (PackageVariant/example-local-path-provisioner in pv-local-path-provisioner.yaml)",
		"metallb":                "nephio-workload-cluster (PackageVariant/example-metallb in pv-metallb.yaml)",
		"multus":                 "nephio-workload-cluster (PackageVariant/example-multus in pv-multus.yaml)",
		"repository":             "nephio-workload-cluster (PackageVariant/example-repo in pv-repo.yaml)",
		"rootsync":               "nephio-workload-cluster (PackageVariant/example-rootsync in pv-rootsync.yaml)",
		"vlanindex":              "nephio-workload-cluster (PackageVariant/example-vlanindex in pv-vlanindex.yaml)",
		"workload-crds":          "nephio-workload-cluster (PackageVariant/example-crds in pv-crds.yaml)",
		// APIs the packages use, each from its provider
		"cluster-capi":     "cluster-capi-kind (uses cluster.x-k8s.io Cluster: Cluster/default/workload in cluster.yaml)",
		"cert-manager":     "cluster-capi (uses cert-manager.io Certificate: Certificate/capi-kubeadm-bootstrap-system/capi-kubeadm-bootstrap-serving-cert in cluster-api-bootstrap.yaml and more APIs)",
		"porch":            "nephio-mgmt/nephio-controllers (uses resource \"packagerevisions\" of group porch.kpt.dev: ClusterRole/nephio-controller-approval-role rules[0] in app/controller/clusterrole-approval.yaml and more APIs)",
		"resource-backend": "nephio-mgmt/nephio-controllers (uses resource \"links\" of group inv.nephio.org: ClusterRole/nephio-controller-network-role rules[0] in app/controller/clusterrole-network.yaml and more APIs)",
	}
	got := map[string]string{}
	for _, r := range rl.Results() {
		pkg, rest, _ := strings.Cut(r.Message, ": install v1: latest version, needed by ")
		if r.Severity == result.SeverityInfo && rest != "" {
			got[pkg] = firstNeeder(rest)
		}
	}
	if diff := cmp.Diff(from, got); diff != "" {
		t.Errorf("what each package is from (-want +got):\n%s", diff)
	}
}

// firstNeeder cuts the first entry of `a (why), b (why)`.
func firstNeeder(s string) string {
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

func nodesOf(t *testing.T, pkgs []v1alpha1.CatalogPackage) []*yaml.RNode {
	t.Helper()
	var out []*yaml.RNode
	for _, p := range pkgs {
		b, err := yaml.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parse(t, string(b)))
	}
	return out
}

func parse(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// golden compares got with the file at path (-update rewrites it).
func golden(t *testing.T, path, got string) {
	t.Helper()
	if krmtest.Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}
