package kptpkg_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
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

// lineOf matches a key written twice as DuplicateKeys names it: the line
// the key is written again at, and the key when it is plain.
var lineOf = regexp.MustCompile(`line (\d+): mapping key "([A-Za-z0-9_.-]+)" already defined at line (\d+)`)

// FuzzItems: a file reads, or is refused; what reads has no key written
// twice; a key named written twice is written at both lines of the file
// named (the lines of a document after others are the file's).
func FuzzItems(f *testing.F) {
	f.Add([]byte(cm("a") + "---\n" + cm("b") + "  name: c\n"))
	f.Add([]byte("# c\n---\n---\n" + kf + "  name: q\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {kind: A, kind: B}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := kptpkg.Items("f.yaml", data)
		if err == nil {
			if err := kptpkg.DuplicateKeys(nil, docs); err != nil {
				t.Fatalf("read with a key written twice: %v", err)
			}
			return
		}
		// YAML breaks a line at "\r\n", "\n" and a lone "\r", and numbers
		// lines so.
		lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data)), "\n")
		for _, m := range lineOf.FindAllStringSubmatch(err.Error(), -1) {
			for _, l := range []string{m[1], m[3]} {
				n, _ := strconv.Atoi(l)
				if n < 1 || n > len(lines) || !strings.Contains(lines[n-1], m[2]) {
					t.Fatalf("%s: line %d of the file does not hold %q\ninput:\n%s", m[0], n, m[2], data)
				}
			}
		}
	})
}
