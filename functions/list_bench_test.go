package functions_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// sharedBench is the workplace's benchmark folder (gen.py, sdkid), next to
// the checkout.
const sharedBench = "../../shared/bench"

var sdkMax = flag.Int("sdk-max", 10000, "BenchmarkList: the largest list the SDK function runs on (at 100,000 items it takes minutes and over 13 GB)")

// listFunctions are the functions BenchmarkList measures, each with the
// input it reads: "pv" is a package with a PackageVariant as config,
// "package" the same package without one.
var listFunctions = []struct{ name, input string }{
	{"set-package-context", "pv"},
	{"prepend-pipeline", "pv"},
	{"inject-config", "pv"},
	{"apply-stack", "package"},
}

// benchVariant is the PackageVariant the functions of BenchmarkList get:
// package context, a pipeline function and an injector.
const benchVariant = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: big-prod
  namespace: default
spec:
  upstream: {repo: blueprints, package: big, workspaceName: main}
  downstream: {repo: deployments, package: big-prod}
  packageContext:
    data:
      env: prod
      region: us-central1
  pipeline:
    mutators:
    - name: labels
      image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0
      configMap: {env: prod}
  injectors:
  - name: prod-endpoints
`

// BenchmarkList runs the function binaries as kpt runs them over the
// workplace's generated ResourceLists (../shared/bench/gen.py: ConfigMaps,
// Deployments and Services, about 1 KB an item) of 1,000, 10,000 and
// 100,000 items, each size next to the identity binary and the trivial
// function written with the KRM functions SDK (../shared/bench/sdkid) over
// the same input. Per run: wall time (ns/op), CPU time (cpu-ms/op), peak
// resident memory (peak-MB). Each -count is a paired set: compare within
// it. Skipped without ../shared/bench.
//
//	go test ./functions -run '^$' -bench BenchmarkList -benchtime 1x -count 5
func BenchmarkList(b *testing.B) {
	if _, err := os.Stat(filepath.Join(sharedBench, "gen.py")); err != nil {
		b.Skipf("no %s: %v", sharedBench, err)
	}
	bin := buildBinaries(b, "./internal/identity", "./set-package-context", "./prepend-pipeline", "./inject-config", "./apply-stack")
	sdk := buildSDK(b)
	dir := b.TempDir()
	pv := filepath.Join(dir, "pv.yaml")
	if err := os.WriteFile(pv, []byte(benchVariant), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000, 100000} {
		inputs := map[string][]byte{
			"pv":      generate(b, n, "--package", "--config", pv),
			"package": generate(b, n, "--package"),
		}
		runs := []struct{ name, path, input string }{{"identity", filepath.Join(bin, "identity"), "pv"}}
		if n <= *sdkMax {
			runs = append([]struct{ name, path, input string }{{"sdk", sdk, "pv"}}, runs...)
		}
		for _, f := range listFunctions {
			runs = append(runs, struct{ name, path, input string }{f.name, filepath.Join(bin, f.name), f.input})
		}
		for _, r := range runs {
			b.Run(fmt.Sprintf("%d/%s", n, r.name), func(b *testing.B) {
				measure(b, r.path, inputs[r.input])
			})
		}
	}
}

// measure runs a function binary over in b.N times and reports its CPU
// time and peak memory per run.
func measure(b *testing.B, path string, in []byte) {
	b.Helper()
	var cpu time.Duration
	var peak int64
	for b.Loop() {
		r := runBinary(b, path, in)
		cpu += r.cpu
		peak = max(peak, r.peakKB)
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(peak)/1024, "peak-MB")
}

// generate runs gen.py for a list of n items.
func generate(b *testing.B, n int, args ...string) []byte {
	b.Helper()
	cmd := exec.Command("python3", append([]string{filepath.Join(sharedBench, "gen.py"), fmt.Sprint(n)}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("gen.py %d: %v", n, err)
	}
	return out
}

// buildSDK builds the SDK baseline (its own module) in a copy of its
// folder, and returns the binary.
func buildSDK(b *testing.B) string {
	b.Helper()
	src, dir := filepath.Join(sharedBench, "sdkid"), b.TempDir()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			b.Skipf("no SDK baseline: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	out := filepath.Join(dir, "sdkid")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building the SDK baseline: %v\n%s", err, msg)
	}
	return out
}
