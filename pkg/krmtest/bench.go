package krmtest

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kptkit/kptkit/pkg/krmfn"
)

// Package returns a ResourceList as kpt sends it for a package of n
// resources (Deployments and Services, with kpt's annotations), plus its
// Kptfile and package context, and the functionConfig fc ("" for none).
func Package(n int, fc string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString(`- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: app
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'Kptfile'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'Kptfile'
  info:
    description: a generated package
  pipeline:
    mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1
      configMap: {namespace: app}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kptfile.kpt.dev
    annotations:
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'package-context.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'package-context.yaml'
  data:
    name: app
`)
	writeDeployments(&b, n, false)
	writeFunctionConfig(&b, fc)
	return []byte(b.String())
}

// SettersPackage returns a ResourceList as porch-server sends it for a
// package of n Deployments, each with a setter comment on its replicas
// (${replicas}) and image (nginx:${tag}), and a Kptfile, with the
// functionConfig fc ("" for none): the function runner's and
// apply-setters' benchmark input.
func SettersPackage(n int, fc string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString("- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: app\n    annotations:\n" +
		"      config.kubernetes.io/local-config: \"true\"\n      config.kubernetes.io/path: 'Kptfile'\n      internal.config.kubernetes.io/path: 'Kptfile'\n")
	writeDeployments(&b, n, true)
	writeFunctionConfig(&b, fc)
	return []byte(b.String())
}

// writeDeployments writes n Deployments web-0… as ResourceList items, with
// setter comments on replicas and image when setters is set, an env
// otherwise.
func writeDeployments(b *strings.Builder, n int, setters bool) {
	replicas, image, env := "", "", "          env:\n          - {name: DEBUG, value: \"no\"}\n"
	if setters {
		replicas, image, env = " # kpt-set: ${replicas}", " # kpt-set: nginx:${tag}", ""
	}
	for i := range n {
		fmt.Fprintf(b, `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web-%[1]d # the web tier
    namespace: app
    labels: {app: web, shard: "%[1]d"}
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'web/%[1]d.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'web/%[1]d.yaml'
  spec:
    replicas: 3%[2]s
    selector:
      matchLabels: {app: web}
    template:
      metadata:
        labels: {app: web}
      spec:
        containers:
        - name: web
          image: "nginx:1.27"%[3]s
          ports:
          - containerPort: 8080
%[4]s`, i, replicas, image, env)
	}
}

// writeFunctionConfig writes fc as the ResourceList's functionConfig;
// nothing for "".
func writeFunctionConfig(b *strings.Builder, fc string) {
	if fc == "" {
		return
	}
	b.WriteString("functionConfig:\n")
	for line := range strings.Lines(fc) {
		b.WriteString("  " + line)
	}
}

// Fleet returns a ResourceList of n labelled Repositories and a
// PackageVariantSet that selects them all with a template of 6 CEL
// expressions, as kpt would send it: fan-out-variants' benchmark input.
func Fleet(n int) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	regions := []string{"us-central1", "us-east1", "europe-west1", "asia-east1"}
	for i := range n {
		fmt.Fprintf(&b, `- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata:
    name: edge-%05d
    namespace: default
    labels:
      fleet: edge
      region: %s
      tier: t%d
    annotations:
      config.kubernetes.io/index: '%d'
      config.kubernetes.io/path: 'repositories.yaml'
      owner: team-%d
  spec:
    type: git
    deployment: true
    git:
      repo: https://git.example.com/fleet/edge-%05d.git
      branch: main
      directory: /
`, i, regions[i%len(regions)], i%3, i, i%7, i)
	}
	b.WriteString(`functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha2
  kind: PackageVariantSet
  metadata:
    name: agent
    namespace: default
  spec:
    upstream: {repo: catalog, package: agent, revision: v1}
    targets:
    - repositorySelector:
        matchLabels: {fleet: edge}
        matchExpressions:
        - {key: tier, operator: In, values: [t0, t1, t2]}
      template:
        downstream:
          packageExpr: "packageDefault + '-' + repository.labels['region']"
        labelExprs:
        - {key: region, valueExpr: "repository.labels['region']"}
        - {key: owner, valueExpr: "repository.annotations['owner']"}
        annotationExprs:
        - {key: cluster, valueExpr: "repository.name.upperAscii()"}
        packageContext:
          dataExprs:
          - {key: site, valueExpr: "'%s/%s'.format([target.name, repository.labels['tier']])"}
        injectors:
        - nameExpr: "repository.labels['region'] + '-endpoints'"
`)
	return b.Bytes()
}

// StackPackage is a ResourceList of n resources as kpt passes them: a Kptfile,
// then Deployments, Services and ConfigMaps in files of three, with kpt's
// annotations; every Deployment is associated with its ConfigMap (when the
// package has it): apply-stack's benchmark input.
func StackPackage(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	b.WriteString("- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: big\n    annotations:\n      config.kubernetes.io/local-config: \"true\"\n      config.kubernetes.io/path: 'Kptfile'\n")
	for i := range n {
		file := fmt.Sprintf("app-%d.yaml", i/3)
		ann := fmt.Sprintf("    annotations:\n      config.kubernetes.io/index: '%d'\n      config.kubernetes.io/path: '%s'\n      internal.config.kubernetes.io/index: '%d'\n      internal.config.kubernetes.io/path: '%s'\n", i%3, file, i%3, file)
		app := fmt.Sprintf("app-%d", i/3)
		assoc := ""
		if i+2 < n {
			assoc = "    associations:\n    - kind: ConfigMap\n      name: " + app + "\n"
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: %s\n    namespace: prod\n    labels:\n      app: %s\n%s  spec:\n%s    replicas: 2\n    selector:\n      matchLabels:\n        app: %s\n    template:\n      metadata:\n        labels:\n          app: %s\n      spec:\n        containers:\n        - name: app\n          image: registry.example.com/app:v1.%d\n          ports:\n          - containerPort: 8080\n", app, app, ann, assoc, app, app, i)
		case 1:
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: %s\n    namespace: prod\n%s  spec:\n    selector:\n      app: %s\n    ports:\n    - port: 80\n      targetPort: 8080\n", app, ann, app)
		default:
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: %s\n    namespace: prod\n%s  data:\n    LOG_LEVEL: info\n    FEATURE_X: \"on\"\n", app, ann)
		}
	}
	return []byte(b.String())
}

// Bench times f over in, reporting bytes per second, allocations and CPU
// time.
func Bench(b *testing.B, f krmfn.Function, in []byte) {
	b.Helper()
	env := Env(Clock, nil)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	defer CPU(b)()
	for b.Loop() {
		if _, results := krmfn.Process(f, in, env); results.HasError() {
			b.Fatalf("%s failed: %v", f.Name, results)
		}
	}
}

// CPU starts counting the process's CPU time (user and system, the garbage
// collector's included) and returns a function that reports it per
// operation as "cpu-ms/op". On a shared machine wall time moves with the
// neighbours' load; CPU time moves much less. Call the returned function
// after the b.Loop loop.
func CPU(b *testing.B) func() {
	b.Helper()
	start := cpuTime(b)
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
		}
	}
}

// cpuTime is the CPU time the process has used, in nanoseconds.
func cpuTime(b *testing.B) int64 { return int64(ProcessCPU(b)) }

// ProcessCPU is the CPU time the process has used so far (user and
// system, the garbage collector's included); subtract two readings to time
// a stretch of a benchmark.
func ProcessCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("cannot read the CPU time: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ForkExecs runs the binary bin n times over in, a fork and exec per run as
// Porch's exec evaluator does: each run's wall time, and the children's CPU
// time (user and system) over all runs. A failed run fails the benchmark.
func ForkExecs(b *testing.B, bin string, in []byte, n int) (walls []time.Duration, cpu time.Duration) {
	b.Helper()
	for range n {
		cmd := exec.Command(bin)
		cmd.Stdin = bytes.NewReader(in)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v\n%.2000s", bin, err, out.String())
		}
		walls = append(walls, time.Since(t0))
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return walls, cpu
}
