package kptpkg_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// benchPaths are paths as packages name them: the Nephio catalog's, a
// fleet's output, dotfiles.
var benchPaths = []string{
	"Kptfile",
	"package-context.yaml",
	".krmignore",
	"edge01/web/deployment.yaml",
	"nephio-catalog/workloads/free5gc/free5gc-cp/ausf/ausf-service.yaml",
	"nephio-catalog/workloads/oai/oai-ran-operator/operator/deployment.yaml",
	"nephio-catalog/nephio/core/nephio-operator/crd/Kptfile",
	"nephio-catalog/infra/capi/cluster-capi-infrastructure-metal3/cluster-api-infrastructure-metal3.yaml",
	"app/.github/workflows/ci.yaml",
	"gitea/gitea-server.yaml",
}

// BenchmarkCheckPath measures the one path check every file read or
// written goes through.
func BenchmarkCheckPath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range benchPaths {
			if err := kptpkg.CheckPath("file", p); err != nil {
				b.Fatal(err)
			}
		}
	}
}
