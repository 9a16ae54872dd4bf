package kptpkg_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// A package file (a Kptfile too) that writes a key twice in a mapping is
// refused, every such key named with its resource and the file's lines.
func TestItemsRefusesDuplicateKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, in, want string
	}{{
		name: "none",
		file: "cm.yaml",
		in:   cm("a") + "data: {x: 1}\n---\n" + cm("b"),
	}, {
		name: "in the second document, the file's lines",
		file: "app/cm.yaml",
		in:   cm("a") + "---\n" + cm("b") + "  name: c\ndata:\n  x: 1\n  y: 2\n  x: 3\n",
		want: `cannot read app/cm.yaml: ConfigMap/b: line 10: mapping key "name" already defined at line 9; ConfigMap/b: line 14: mapping key "x" already defined at line 12`,
	}, {
		name: "after empty documents and comments, with CRLF",
		file: "crlf.yaml",
		in:   "# head\r\n---\r\n---\r\n# only a comment\r\n---\r\n" + "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: a\r\n  name: a\r\n",
		want: `cannot read crlf.yaml: ConfigMap/a: line 10: mapping key "name" already defined at line 9`,
	}, {
		name: "a Kptfile",
		file: "Kptfile",
		in:   kf + "pipeline:\n  mutators:\n  - image: a\n    image: b\n",
		want: `cannot read Kptfile: Kptfile/p: line 8: mapping key "image" already defined at line 7`,
	}, {
		name: "a document without a name",
		file: "x.yaml",
		in:   "apiVersion: v1\nkind: List\nkind: List\n",
		want: `cannot read x.yaml: document 0: line 3: mapping key "kind" already defined at line 2`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := kptpkg.Items(tc.file, []byte(tc.in))
			if diff := cmp.Diff(tc.want, fmt.Sprint(err)); tc.want != "" && diff != "" {
				t.Errorf("Items (-want +got):\n%s", diff)
			}
			if tc.want == "" && err != nil {
				t.Errorf("Items: %v", err)
			}
			_, err = kptpkg.Files{"Kptfile": []byte(kf), tc.file: []byte(tc.in)}.Resources("", true)
			if tc.want != "" && fmt.Sprint(err) != tc.want {
				t.Errorf("Resources: %v, want %s", err, tc.want)
			}
		})
	}
}
