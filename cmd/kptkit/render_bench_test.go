package main

// BenchmarkRenderVsKpt renders the benchmark packages of ../shared/bench
// (gen.py N --files) with kptkit render and with kpt fn render
// --allow-exec, the same functions handed to kpt as exec binaries (those
// of the equivalence tests), in pairs on fresh copies, alternating which
// goes first. It reports the medians of each tool's wall time, of the
// speed-up in each pair (and its range), and of the CPU time. Skipped
// when ../shared/bench is absent. KPTKIT_BENCH_PAIRS sets the number of
// pairs (default 5); the 10,000-resource case runs kpt only with
// KPTKIT_BENCH_KPT10K=1 (it takes minutes).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kptkit/kptkit/internal/pkgfs"
	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// benchPackage writes gen.py's package of n resources with a Kptfile
// pipeline, and the files it names, for each tool.
type benchCase struct {
	name     string
	n        int
	kptkit   string // the pipeline's mutators for kptkit
	kpt      string // the same functions as exec binaries for kpt
	extra    kptpkg.Files
	setters  bool // give the Deployments' replicas a setter
	kptSkip  bool // do not run kpt (unless KPTKIT_BENCH_KPT10K)
	allowKpt string
}

const benchReplacements = `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: package-name
  annotations:
    config.kubernetes.io/local-config: "true"
replacements:
- source:
    kind: ConfigMap
    name: kptfile.kpt.dev
    fieldPath: data.name
  targets:
  - select:
      kind: Deployment
    fieldPaths:
    - metadata.annotations.[example.com/package]
    options:
      create: true
`

const benchVariant = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: edge01-big
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  upstream: {repo: catalog, package: big, revision: "1"}
  downstream: {repo: edge01, package: big}
  packageContext:
    data:
      cluster-name: edge01
      region: us-central1
  injectors:
  - kind: WorkloadCluster
    name: edge01
  pipeline:
    mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-annotations:v0.1.4
      configMap:
        nephio.org/cluster-name: edge01
`

const benchCluster = `apiVersion: infra.nephio.org/v1alpha1
kind: WorkloadCluster
metadata:
  name: edge01
  annotations:
    kptkit.dev/in-cluster: "true"
spec:
  clusterName: edge01
`

const benchInjectionPoint = `apiVersion: infra.nephio.org/v1alpha1
kind: WorkloadCluster
metadata:
  name: workload-cluster
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: required
spec:
  clusterName: example
`

func benchCases(bins equivBinaries) []benchCase {
	cat := func(name, cfg string) (string, string) {
		img := map[string]string{"set-namespace": "v0.4.1", "apply-replacements": "v0.1.1", "apply-setters": "v0.2.0"}[name]
		return "  - image: ghcr.io/kptdev/krm-functions-catalog/" + name + ":" + img + "\n" + cfg,
			"  - exec: " + bins.catalog[name] + "\n" + cfg
	}
	ns1, ns2 := cat("set-namespace", "    configMap:\n      namespace: prod\n")
	ar1, ar2 := cat("apply-replacements", "    configPath: apply-replacements.yaml\n")
	as1, as2 := cat("apply-setters", "    configMap:\n      replicas: \"5\"\n")
	own := ""
	for _, fn := range []string{"set-package-context", "prepend-pipeline", "inject-config"} {
		own += "  - exec: " + filepath.Join(bins.dir, "bin", fn) + "\n    configPath: pv.yaml\n"
	}
	return []benchCase{
		{name: "1k-set-namespace+apply-replacements", n: 1000, kptkit: ns1 + ar1, kpt: ns2 + ar2,
			extra: kptpkg.Files{"apply-replacements.yaml": []byte(benchReplacements)}},
		{name: "1k-kptkit-functions", n: 1000, kptkit: own, kpt: own,
			extra: kptpkg.Files{"pv.yaml": []byte(benchVariant), "cluster.yaml": []byte(benchCluster), "workload-cluster.yaml": []byte(benchInjectionPoint)}},
		{name: "10k-set-namespace+apply-replacements+apply-setters", n: 10000, kptkit: ns1 + ar1 + as1, kpt: ns2 + ar2 + as2,
			extra: kptpkg.Files{"apply-replacements.yaml": []byte(benchReplacements)}, setters: true, kptSkip: os.Getenv("KPTKIT_BENCH_KPT10K") == ""},
	}
}

// write makes the case's package for a tool in dir.
func (c benchCase) write(b *testing.B, gen, dir, mutators string) {
	b.Helper()
	if out, err := exec.Command("python3", gen, strconv.Itoa(c.n), "--files", dir).CombinedOutput(); err != nil {
		b.Fatalf("gen.py: %v\n%s", err, out)
	}
	files, err := pkgfs.Read(dir)
	if err != nil {
		b.Fatal(err)
	}
	old := files.Clone()
	files["Kptfile"] = []byte(strings.Replace(string(files["Kptfile"]), "  mutators: []\n", "  mutators:\n"+mutators, 1))
	for p, data := range c.extra {
		files[p] = data
	}
	if c.setters {
		for p, data := range files {
			files[p] = []byte(strings.ReplaceAll(string(data), "replicas: 3 # scaled by hand", "replicas: 3 # kpt-set: ${replicas}"))
		}
	}
	if err := pkgfs.Write(dir, old, files); err != nil {
		b.Fatal(err)
	}
}

// timed runs a command and returns its wall and CPU time.
func timed(b *testing.B, dir string, name string, args ...string) (wall, cpu time.Duration) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KPT_DISABLE_ATTRIBUTION=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func BenchmarkRenderVsKpt(b *testing.B) {
	gen := filepath.Join(benchDir(b), "gen.py")
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		b.Skip("kpt is not installed")
	}
	bins := buildEquivBinaries(b)
	pairs := 5
	if n, err := strconv.Atoi(os.Getenv("KPTKIT_BENCH_PAIRS")); err == nil && n > 0 {
		pairs = n
	}
	for _, c := range benchCases(bins) {
		b.Run(c.name, func(b *testing.B) {
			tmp := b.TempDir()
			base := map[string]string{"kptkit": filepath.Join(tmp, "base-kptkit"), "kpt": filepath.Join(tmp, "base-kpt")}
			c.write(b, gen, base["kptkit"], c.kptkit)
			c.write(b, gen, base["kpt"], c.kpt)
			var walls, cpus = map[string][]time.Duration{}, map[string][]time.Duration{}
			var ratios []float64
			for range b.N {
				for i := range pairs {
					order := []string{"kptkit", "kpt"}
					if i%2 == 1 {
						order = []string{"kpt", "kptkit"}
					}
					got := map[string]time.Duration{}
					for _, tool := range order {
						if tool == "kpt" && c.kptSkip {
							continue
						}
						dir := filepath.Join(tmp, fmt.Sprintf("%s-%d", tool, i))
						files, err := pkgfs.Read(base[tool])
						if err != nil {
							b.Fatal(err)
						}
						if err := pkgfs.Write(dir, nil, files); err != nil {
							b.Fatal(err)
						}
						var wall, cpu time.Duration
						if tool == "kpt" {
							wall, cpu = timed(b, dir, kpt, "fn", "render", "--allow-exec")
						} else {
							wall, cpu = timed(b, dir, filepath.Join(bins.dir, "kptkit"), "render", "--allow-exec")
						}
						got[tool] = wall
						walls[tool], cpus[tool] = append(walls[tool], wall), append(cpus[tool], cpu)
						_ = os.RemoveAll(dir)
					}
					if got["kpt"] > 0 {
						ratios = append(ratios, float64(got["kpt"])/float64(got["kptkit"]))
					}
				}
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(ms(median(walls["kptkit"])), "kptkit-ms")
			b.ReportMetric(ms(median(cpus["kptkit"])), "kptkit-cpu-ms")
			if len(ratios) > 0 {
				slices.Sort(ratios)
				b.ReportMetric(ms(median(walls["kpt"])), "kpt-ms")
				b.ReportMetric(ms(median(cpus["kpt"])), "kpt-cpu-ms")
				b.ReportMetric(ratios[len(ratios)/2], "x-median")
				b.ReportMetric(ratios[0], "x-min")
				b.ReportMetric(ratios[len(ratios)-1], "x-max")
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
