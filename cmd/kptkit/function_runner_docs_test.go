package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// porchFunctionRunner is Porch's own function runner's Service and port
// (Porch v1.5.8, deployments/porch/2-function-runner.yaml), the fallback.
const porchFunctionRunner = "function-runner:9445"

// docManifests reads the YAML blocks of a page: the documents of each,
// its indentation (a block in a list item) taken off.
func docManifests(t *testing.T, page string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	var cur *bytes.Buffer
	indent := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```yaml":
			cur, indent = &bytes.Buffer{}, line[:len(line)-len(strings.TrimLeft(line, " "))]
		case cur != nil && trimmed == "```":
			for _, d := range strings.Split(cur.String(), "\n---\n") {
				docs = append(docs, []byte(d))
			}
			cur = nil
		case cur != nil:
			cur.WriteString(strings.TrimPrefix(line, indent) + "\n")
		}
	}
	return docs
}

// strict decodes a manifest into the Kubernetes API's type, refusing
// fields the type does not have.
func strict(t *testing.T, doc []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(doc, into); err != nil {
		t.Fatalf("%v:\n%s", err, doc)
	}
}

// TestFunctionRunnerManifests: docs/function-runner.md's Deployment,
// Service and porch-server patch are valid objects of the Kubernetes API,
// the Deployment's args are kptkit function-runner's own flags, and the
// three agree: the port, the probes on the health service, the fallback,
// the message size, the Service porch-server dials.
func TestFunctionRunnerManifests(t *testing.T) {
	t.Parallel()
	docs := docManifests(t, "../../docs/function-runner.md")
	if len(docs) != 3 {
		t.Fatalf("docs/function-runner.md holds %d manifests, want the Deployment, the Service and porch-server's patch", len(docs))
	}
	var runner, porch appsv1.Deployment
	var svc corev1.Service
	strict(t, docs[0], &runner)
	strict(t, docs[1], &svc)
	strict(t, docs[2], &porch)
	pod := runner.Spec.Template
	for k, v := range runner.Spec.Selector.MatchLabels {
		if pod.Labels[k] != v || svc.Spec.Selector[k] != v {
			t.Errorf("label %s=%s: the pods have %q, the Service selects %q", k, v, pod.Labels[k], svc.Spec.Selector[k])
		}
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	f, err := parseFunctionRunner(&call{path: "kptkit function-runner", stdout: io.Discard, stderr: io.Discard}, c.Args)
	if err != nil {
		t.Fatalf("the Deployment's args are not kptkit function-runner's flags: %v", err)
	}
	checkRunnerContainer(t, c, f)
	if f.fallback != porchFunctionRunner {
		t.Errorf("--fallback is %q, want Porch's function runner %s", f.fallback, porchFunctionRunner)
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= 25*time.Second {
		t.Errorf("terminationGracePeriodSeconds %v leaves no time after the 25 s the calls in flight have", g)
	}
	if sc := pod.Spec.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 65532 || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("the pod does not run as the image's nonroot user 65532: %+v", sc)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 9445 || svc.Spec.Ports[0].TargetPort.String() != c.Ports[0].Name {
		t.Errorf("the Service's ports %+v: want 9445 to the container's port %q", svc.Spec.Ports, c.Ports[0].Name)
	}
	args := porch.Spec.Template.Spec.Containers[0].Args
	if dial := "--function-runner=" + svc.Name + ":9445"; !slices.Contains(args, dial) {
		t.Errorf("porch-server's args %q do not hold %s", args, dial)
	}
	if size := "--max-request-body-size=" + strconv.Itoa(int(f.maxSize)); !slices.Contains(args, size) {
		t.Errorf("porch-server's args %q do not hold the runner's %s", args, size)
	}
}

// checkRunnerContainer checks the function runner's container against its
// flags: its port, and Kubernetes' grpc probes on it (the image has no
// shell), the liveness probe's patience longer than a step.
func checkRunnerContainer(t *testing.T, c corev1.Container, f functionRunnerFlags) {
	t.Helper()
	if len(c.Command) > 0 || !strings.HasSuffix(strings.Split(c.Image, ":")[0], "/function-runner") {
		t.Errorf("the container runs %q %q: want the function-runner image's own entrypoint", c.Image, c.Command)
	}
	if len(c.Ports) != 1 || ":"+strconv.Itoa(int(c.Ports[0].ContainerPort)) != f.listen {
		t.Fatalf("the container's ports %+v: want the one it listens on, %s", c.Ports, f.listen)
	}
	limits, _ := f.limits.limits()
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		switch {
		case p == nil || p.GRPC == nil:
			t.Errorf("the %s probe is not a grpc probe: %+v", name, p)
		case p.GRPC.Port != c.Ports[0].ContainerPort:
			t.Errorf("the %s probe asks port %d, want %d", name, p.GRPC.Port, c.Ports[0].ContainerPort)
		case p.Exec != nil || p.HTTPGet != nil || p.TCPSocket != nil:
			t.Errorf("the %s probe has more than its grpc check: %+v", name, p)
		}
	}
	if p := c.LivenessProbe; p != nil && time.Duration(p.PeriodSeconds*p.FailureThreshold)*time.Second <= limits.Time {
		t.Errorf("the liveness probe gives up after %ds, within --step-timeout %s", p.PeriodSeconds*p.FailureThreshold, limits.Time)
	}
}
