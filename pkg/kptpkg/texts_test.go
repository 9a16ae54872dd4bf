package kptpkg_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// ReadTexts returns a file's documents as their text: a plain file as it is
// written, any other as kyaml writes what it reads; its errors are
// ReadDocuments'.
func TestReadTexts(t *testing.T) {
	t.Parallel()
	repo := "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: edge0001\n  labels: {nephio.org/site-type: edge}\n" +
		"spec:\n  git: {repo: https://git.example.com/fleet/edge0001.git, branch: main}\n"
	wc := "apiVersion: infra.nephio.org/v1alpha1\nkind: WorkloadCluster\nmetadata:\n  name: edge0001\n  # a comment\n  labels:\n    nephio.org/region: us-east1\n" +
		"spec:\n  cnis: [macvlan]\n  script: |\n    one\n\n    two\n"
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{{
		name: "plain documents, as written",
		in:   repo + "---\n" + wc,
		want: []string{repo, wc},
	}, {
		name: "a leading and a trailing separator",
		in:   "---\n" + repo + "---\n\n",
		want: []string{repo},
	}, {
		name: "empty",
		in:   "",
	}, {
		name: "a comment before a document: as kyaml writes it",
		in:   "# the repository\n" + repo,
		want: []string{"# the repository\n" + "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: edge0001\n  labels: {nephio.org/site-type: edge}\n" +
			"spec:\n  git: {repo: 'https://git.example.com/fleet/edge0001.git', branch: main}\n"},
	}, {
		name: "a List, unwrapped",
		in:   "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n",
		want: []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"},
	}, {
		name: "Windows line ends",
		in:   "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: a\r\n",
		want: []string{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
	}, {
		name: "an empty document between two",
		in:   "a: 1\n---\n---\nb: 2\n",
		want: []string{"a: 1\n", "b: 2\n"},
	}, {
		name: "a key written twice",
		in:   repo + "---\n" + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n",
		err:  `ConfigMap/a: line 13: mapping key "name" already defined at line 12`,
	}, {
		name: "not YAML",
		in:   "a: [1\n",
		err:  "MalformedYAMLError: yaml: line 1: did not find expected ',' or ']'",
	}, {
		name: "a '?' in a flow scalar, which yaml.v3 refuses",
		in:   "a: {b: c?d}\n",
		err:  "MalformedYAMLError: yaml: did not find expected ',' or '}'",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := kptpkg.ReadTexts([]byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error: got %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("texts (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzReadTexts holds ReadTexts to ReadDocuments: the same error or none,
// and documents that read as the same nodes (as kyaml writes them).
func FuzzReadTexts(f *testing.F) {
	for _, s := range []string{
		"a: 1\n---\nb: {c: https://x.example.com/y, d: [e:f]}\n",
		"---\nkind: List\nitems:\n- a: 1\n",
		"a: |\n  x\n---\n\nb: 2\n...\n",
		"%YAML 1.2\n---\na: 1\n",
		"a: 1\n  b: 2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		texts, err := kptpkg.ReadTexts(in)
		nodes, want := kptpkg.ReadDocuments(&kio.ByteReader{OmitReaderAnnotations: true}, in)
		if (err == nil) != (want == nil) {
			t.Fatalf("errors differ: ReadTexts %v, ReadDocuments %v\n%q", err, want, in)
		}
		if err != nil {
			return
		}
		if len(texts) != len(nodes) {
			t.Fatalf("%d texts, %d documents\n%q", len(texts), len(nodes), in)
		}
		for i, text := range texts {
			n, err := yaml.Parse(text)
			if err != nil {
				t.Fatalf("text %d does not read: %v\n%q", i, err, text)
			}
			// kyaml's own writing does not always read back the same (a
			// comment after a block scalar's header): hold both to it.
			m, err := yaml.Parse(nodes[i].MustString())
			if err != nil {
				continue
			}
			if got, want := n.MustString(), m.MustString(); got != want {
				t.Fatalf("document %d differs:\n%s\nwant:\n%s\ninput %q", i, got, want, in)
			}
		}
	})
}
