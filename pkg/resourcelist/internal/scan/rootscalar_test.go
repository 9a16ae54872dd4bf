package scan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// rootTexts are root keys' texts RootScalar reads, and those it leaves to
// yaml.v3.
var rootTexts = map[string]struct {
	want string
	ok   bool
}{
	"apiVersion: config.kubernetes.io/v1\n": {"config.kubernetes.io/v1", true},
	"kind: ResourceList\n":                  {"ResourceList", true},
	"kind: ResourceList":                    {"ResourceList", true},
	"kind: 'ResourceList'\n":                {"ResourceList", true},
	`kind: "ResourceList"` + "\n":           {"ResourceList", true},
	"kind:   ResourceList\n":                {"ResourceList", true},
	"kind: ResourceList \n":                 {},
	"kind: ResourceList # a comment\n":      {},
	"kind: ResourceList\n\n":                {},
	"kind: ResourceList\r\n":                {},
	"kind:\n  ResourceList\n":               {},
	"kind: 'it''s'\n":                       {},
	`kind: "a\tb"` + "\n":                   {},
	"kind: 1\n":                             {},
	"kind: true\n":                          {},
	"kind: null\n":                          {},
	"kind: ~\n":                             {},
	"kind: ''\n":                            {"", true},
	"kind: a: b\n":                          {},
	"kind: [a]\n":                           {},
	"kind: {a: b}\n":                        {},
	"kind: &a b\n":                          {},
	"kind: !!str b\n":                       {},
	"kind: |\n  a\n":                        {},
	"kind:\n":                               {},
	"kind: \n":                              {},
	"":                                      {},
	"\n":                                    {},
	"'kind': a\n":                           {},
	"kind: 'a' b\n":                         {},
}

// TestRootScalar: what RootScalar reads, yaml.v3 reads the same.
func TestRootScalar(t *testing.T) {
	t.Parallel()
	for text, want := range rootTexts {
		got, ok := RootScalar([]byte(text))
		if diff := cmp.Diff(want, struct {
			want string
			ok   bool
		}{got, ok}, cmp.AllowUnexported(want)); diff != "" {
			t.Errorf("RootScalar(%q) (-want +got):\n%s", text, diff)
		}
		checkRootScalar(t, text)
	}
}

// checkRootScalar fails when RootScalar reads a text otherwise than
// yaml.v3: a mapping of one key whose value is that string.
func checkRootScalar(t *testing.T, text string) {
	t.Helper()
	got, ok := RootScalar([]byte(text))
	if !ok {
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("RootScalar(%q) = %q, but yaml.v3 fails: %v", text, got, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode || len(doc.Content[0].Content) != 2 {
		t.Fatalf("RootScalar(%q) = %q, but yaml.v3 reads no mapping of one key", text, got)
	}
	v := doc.Content[0].Content[1]
	if v.Kind != yaml.ScalarNode || v.Tag != yaml.NodeTagString || v.Value != got {
		t.Fatalf("RootScalar(%q) = %q, yaml.v3 reads %v %s %q", text, got, v.Kind, v.Tag, v.Value)
	}
}

func FuzzRootScalar(f *testing.F) {
	for text := range rootTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) { checkRootScalar(t, text) })
}
