package stack_test

import (
	"fmt"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/stack"
)

const base = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    team: blue
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
`

func sum(t *testing.T, s string) string {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatalf("%v:\n%s", err, s)
	}
	return stack.Checksum(n.YNode())
}

func TestChecksum(t *testing.T) {
	t.Parallel()
	want := sum(t, base)
	for _, tc := range []struct {
		name string
		in   string
		same bool
	}{
		{"key order", "kind: Deployment\napiVersion: apps/v1\nspec:\n  selector:\n    matchLabels:\n      app: web\n  replicas: 3\nmetadata:\n  annotations: {team: blue}\n  name: web\n", true},
		{"quoting and comments", "apiVersion: \"apps/v1\"\nkind: 'Deployment' # a comment\nmetadata:\n  name: web\n  annotations:\n    team: \"blue\"\nspec:\n  replicas: 0x3\n  selector:\n    matchLabels:\n      app: web\n", true},
		{"kpt's bookkeeping", base[:len("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n")] +
			"    config.kubernetes.io/path: 'web.yaml'\n    config.kubernetes.io/index: '0'\n    internal.config.kubernetes.io/seqindent: wide\n    config.k8s.io/id: '1'\n" +
			base[len("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n"):], true},
		{"associations", base + "  associations:\n  - kind: Label\n    name: x\n", true},
		{"a string is not a number", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    team: blue\nspec:\n  replicas: \"3\"\n  selector: {matchLabels: {app: web}}\n", false},
		{"a value", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    team: red\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n", false},
		{"the version", "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    team: blue\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n", false},
		{"a list's order", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    team: blue\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  args: [a, b]\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := sum(t, tc.in); (got == want) != tc.same {
				t.Errorf("same checksum = %v, want %v:\n%s", got == want, tc.same, tc.in)
			}
		})
	}
}

// Only bookkeeping annotations: the same as no annotations at all.
func TestChecksumEmptiedAnnotations(t *testing.T) {
	t.Parallel()
	a := sum(t, "kind: A\nmetadata:\n  name: x\n")
	b := sum(t, "kind: A\nmetadata:\n  name: x\n  annotations:\n    config.kubernetes.io/path: a.yaml\n")
	if a != b {
		t.Errorf("bookkeeping-only annotations changed the checksum: %s != %s", a, b)
	}
}

func TestChecksumAliasBomb(t *testing.T) {
	t.Parallel()
	s := "kind: A\nmetadata: {name: x}\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := range 12 {
		name := fmt.Sprintf("a%d", i)
		s += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	got := sum(t, s)
	if len(got) != len("sha256:")+64 {
		t.Errorf("checksum %q", got)
	}
	if again := sum(t, s); again != got {
		t.Errorf("the checksum of a bounded walk is not stable: %s != %s", got, again)
	}
	if flat := sum(t, "kind: A\nmetadata: {name: x}\n"); flat == got {
		t.Errorf("the aliased content did not count")
	}
}

func ExampleChecksum() {
	n := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  annotations:\n    config.kubernetes.io/path: app.yaml\ndata: {a: \"1\"}\n")
	m := yaml.MustParse("kind: ConfigMap\napiVersion: v1\ndata:\n  a: '1'\nmetadata: {name: app}\n")
	fmt.Println(stack.Checksum(n.YNode()) == stack.Checksum(m.YNode()))
	// Output: true
}

// kpt fn render adds the package's absolute path: moving the package is not
// a change.
func TestChecksumIgnoresPackagePath(t *testing.T) {
	t.Parallel()
	a := sum(t, "kind: A\nmetadata:\n  name: x\n  annotations:\n    internal.config.kubernetes.io/package-path: /home/me/pkg\n")
	b := sum(t, "kind: A\nmetadata:\n  name: x\n  annotations:\n    internal.config.kubernetes.io/package-path: /tmp/elsewhere\n")
	if a != b {
		t.Errorf("the package path changed the checksum: %s != %s", a, b)
	}
}
