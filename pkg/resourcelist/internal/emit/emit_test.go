package emit

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/krmtest/corpus"
)

// sameAsYAMLv3 checks emit against yaml.v3 on n: emit may decline, but what
// it writes must be yaml.v3's bytes.
func sameAsYAMLv3(t *testing.T, n *yaml.Node) bool {
	t.Helper()
	var b bytes.Buffer
	if !emit(&b, n) {
		return false
	}
	if want := encodeV3(n); !bytes.Equal(want, b.Bytes()) {
		t.Fatalf("emit differs from yaml.v3 (-yaml.v3 +emit):\n%s", cmp.Diff(string(want), b.String()))
	}
	if n.Kind == yaml.MappingNode {
		// As a list item, emitted in place, it must read as yaml.v3's
		// encoding indented under "- ".
		var item bytes.Buffer
		if err := Item(&item, n, 3, 0); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		for i, line := range bytes.SplitAfter(bytes.TrimSuffix(encodeV3(n), []byte("\n")), []byte("\n")) {
			switch {
			case i == 0:
				want.WriteString("  - ")
			case string(line) == "\n": // a literal block's empty line
			default:
				want.WriteString("    ")
			}
			want.Write(line)
		}
		want.WriteByte('\n')
		if !bytes.Equal(want.Bytes(), item.Bytes()) {
			t.Fatalf("an item emitted in place differs (-yaml.v3 +emit):\n%s", cmp.Diff(want.String(), item.String()))
		}
		// As the one element of a list, it is what yaml.v3 writes.
		var one bytes.Buffer
		if !Entry(&one, n, 1) {
			t.Fatal("Entry declines what emit takes")
		}
		if want := encodeV3(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{n}}); !bytes.Equal(want, one.Bytes()) {
			t.Fatalf("an entry differs from yaml.v3's list of one (-yaml.v3 +emit):\n%s", cmp.Diff(string(want), one.String()))
		}
		// Kept encoded, the item reads back as the same data.
		var entry bytes.Buffer
		if err := Item(&entry, n, 1, 0); err != nil {
			t.Fatal(err)
		}
		if back := encodeV3(DecodeEntry(entry.Bytes())); !bytes.Equal(back, encodeV3(n)) {
			t.Fatalf("an encoded item reads back differently (-item +read back):\n%s", cmp.Diff(string(encodeV3(n)), string(back)))
		}
	}
	return true
}

func TestEmitScalars(t *testing.T) {
	t.Parallel()
	values := []string{"plain", "with space", "a: b", "a:b", "#x", "x #y", "x:", "-c", "- c", "3", "0x1F", "1.5", "1e3",
		"true", "True", "yes", "no", "on", "null", "~", "", " lead", "trail ", "it's", `say "hi"`, `back\slash`,
		"2001-12-14", "2001-12-14t21:59:43.10-05:00", "ghcr.io/kptdev/set-labels:v0.2.0", "*", "&a", "!tag", "%x", "@x",
		"`x", "|", ">", "[a]", "{a}", "a,b", "?x", "? x", "<<", ".inf", "-.inf", ".NaN", "+1", "-1", "007", "0o17", "1_000",
		"---", "...", "--- x", "a\tb", strings.Repeat("long words ", 20), "ünïcode"}
	handled := 0
	for _, v := range values {
		for _, tag := range []string{yaml.NodeTagString, ""} {
			for _, style := range []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle} {
				n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
					{Kind: yaml.ScalarNode, Tag: tag, Value: v, Style: style},
					{Kind: yaml.ScalarNode, Tag: tag, Value: v, Style: style},
				}}
				if sameAsYAMLv3(t, n) {
					handled++
				}
			}
		}
	}
	for _, tv := range [][2]string{{yaml.NodeTagInt, "3"}, {yaml.NodeTagInt, "0x1F"}, {yaml.NodeTagBool, "true"},
		{yaml.NodeTagFloat, "1.5"}, {yaml.NodeTagNull, "null"}, {yaml.NodeTagNull, "~"}, {yaml.NodeTagInt, "abc"}} {
		n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: "k"}, {Kind: yaml.ScalarNode, Tag: tv[0], Value: tv[1]},
		}}
		if sameAsYAMLv3(t, n) {
			handled++
		}
	}
	if handled < len(values) {
		t.Errorf("emit handled only %d cases: the fast path is too narrow", handled)
	}
}

// TestEmitCorpus compares emit with yaml.v3 on every document of the Nephio
// catalog, with comments stripped so that emit takes most of them.
func TestEmitCorpus(t *testing.T) {
	t.Parallel()
	docs, handled := 0, 0
	err := filepath.WalkDir(corpus.Nephio(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || d.Name() == "Kptfile") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc yaml.Node
			if dec.Decode(&doc) != nil {
				break
			}
			if len(doc.Content) != 1 {
				continue
			}
			n := doc.Content[0]
			sameAsYAMLv3(t, n) // with its comments: emit takes those on one-line values
			stripComments(n)
			docs++
			if sameAsYAMLv3(t, n) {
				handled++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("emit wrote %d of %d corpus documents as yaml.v3 does", handled, docs)
	if handled < docs/2 {
		t.Errorf("emit handled %d of %d corpus documents: the fast path is too narrow", handled, docs)
	}
}

func stripComments(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		stripComments(c)
	}
}

func FuzzEmit(f *testing.F) {
	f.Add("a: b\nc: [d, e]\nf: {g: 1}\nh: []\ni: {}\n- x\n")
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: 'yes'\n  b: \"1\"\n  c: ~\n")
	f.Add("- - a\n  - b\n- {}\n- []\n- k: v\n  l:\n  - m\n")
	f.Add("a: |\n  x\n\n  y\nb: 3 # c\nc: [\"d\", e]\nd:\n- f # g\n")
	f.Add("l:\n# one\n# two\n- a: b\n# three\n- c: d\n  e:\n  # four\n  - f: g\n")
	f.Fuzz(func(t *testing.T, s string) {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(s), &doc) != nil || len(doc.Content) != 1 {
			return
		}
		n := doc.Content[0]
		if encodeV3(n) == nil {
			return
		}
		sameAsYAMLv3(t, n)
		stripComments(n)
		sameAsYAMLv3(t, n)
	})
}

// TestEmitBlocksCommentsFlow: literal blocks, line comments and flow lists
// of scalars are written as yaml.v3 writes them, or declined.
func TestEmitBlocksCommentsFlow(t *testing.T) {
	t.Parallel()
	takes := []string{
		"data:\n  script: |\n    #!/bin/sh\n    echo starting 1\n    exec /app --port=8080\n",
		"data:\n  a: |-\n    one\n    two\n  b: x\n",
		"data:\n  a: |\n    one\n\n      two\n  b: x\n",
		"spec:\n  replicas: 3 # scaled by hand\n  x: y\n",
		"spec:\n  replicas: 3 # kpt-set: ${replicas}\n",
		"l:\n- a # one\n- b\n",
		"args: [\"--v=2\", \"--id=0\"]\nb: [a, b]\nc: ['x', y]\n",
		"containers:\n- name: c\n  args: [\"--v=2\"]\n  env:\n  - name: MODE\n    value: prod # p\n  emptyDir: {}\n",
		"metadata: # kpt-merge: /svc-0\n  name: svc-0\n",
		"a: # on a map\n  b: c\n",
		"l: # on a list\n- a\n- b: c\n",
		"selector:\n  matchLabels: {app: svc-0}\nlabels: {app: web, tier: \"1\", 'it''s': \"x:y\", n: 3}\n",
		"pipeline:\n  mutators:\n  # added by app-edge0000-app\n  - name: a\n    image: b\n  - image: c\n",
		"l:\n# one\n# two\n- a: b\n# three\n- c: d\n  e:\n  # four\n  - f: g\n",
		"l: # on a list\n# on its element\n- a: b\n",
	}
	declines := []string{
		"a: |+\n  keep\n\nb: x\n",
		"a: |2\n   lead\n",
		"a: [x:y, b]\n",
		"a: [[x]]\n",
		"# head\na: b\n",
		"a: b\n# foot\n",
		"a: |-\n  x # not a comment\n",
		"a: # on a scalar\nb: c\n",
		"a: # on an empty map\n  {}\n",
		"a: # on a flow map\n  {b: c}\n",
		"a: {b: [c]}\n",
		"a: {b: {c: d}}\n",
		"a: {b: x:y}\n",
		"- {a: b}\n",
		"l:\n# one\n\n# two\n- a: b\n",
		"l:\n# on a scalar element\n- a\n",
		"l:\n# on a flow element\n- {a: b}\n",
		"l:\n- - a\n  # on a nested element\n  - b: c\n",
	}
	for i, src := range append(takes, declines...) {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		took := sameAsYAMLv3(t, doc.Content[0])
		if i < len(takes) && !took {
			t.Errorf("emit declined %q", src)
		}
	}
	// literal strings made by functions (no style) and odd ones
	for _, v := range []string{"a\nb", "a\nb\n", "a\n\nb\n", "a\nb\n\n", " a\nb", "a \nb", "a\n b\n", "\na", "a\tb\nc", "a\nb ", "ü\nb"} {
		for _, style := range []yaml.Style{0, yaml.LiteralStyle} {
			n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "k"}, {Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: v, Style: style},
			}}
			sameAsYAMLv3(t, n)
		}
	}
}
