package resourcelist_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/fieldpath"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// sameNodes reports the first difference between two trees, every field
// of every node compared (lines, columns and comments included), or "".
func sameNodes(a, b *yaml.Node, path string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return path + ": one is nil"
		}
		return ""
	case a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor:
		return fmt.Sprintf("%s: %v %v %q %q %q vs %v %v %q %q %q", path, a.Kind, a.Style, a.Tag, a.Value, a.Anchor, b.Kind, b.Style, b.Tag, b.Value, b.Anchor)
	case a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment:
		return fmt.Sprintf("%s (%q): comments %q %q %q vs %q %q %q", path, a.Value, a.HeadComment, a.LineComment, a.FootComment, b.HeadComment, b.LineComment, b.FootComment)
	case a.Line != b.Line || a.Column != b.Column:
		return fmt.Sprintf("%s (%q): at %d:%d vs %d:%d", path, a.Value, a.Line, a.Column, b.Line, b.Column)
	case len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: %d vs %d children", path, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := sameNodes(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkLazy reads in lazily and whole and fails on any difference: the
// error (a refusal of duplicate keys included, which must be yaml.v3's),
// the headers, the functionConfig, the nodes, and the output of the
// same edits (none; then some items changed, deleted and added).
func checkLazy(t *testing.T, in []byte) {
	t.Helper()
	lazy, errLazy := resourcelist.Parse(in)
	full, errFull := resourcelist.ParseFull(in)
	if fmt.Sprint(errLazy) != fmt.Sprint(errFull) {
		t.Fatalf("errors differ: lazy %v, whole %v\ninput:\n%s", errLazy, errFull, in)
	}
	checkDuplicates(t, in, errFull)
	if errFull != nil {
		return
	}
	all := func(resourcelist.Header) bool { return true }
	checkSplitFirst(t, in, lazy)
	li, fi := lazy.Select(all), full.Select(all)
	if len(li) != len(fi) {
		t.Fatalf("items: %d lazy, %d whole\ninput:\n%s", len(li), len(fi), in)
	}
	for i := range li {
		if diff := cmp.Diff(fi[i].Header(), li[i].Header()); diff != "" {
			t.Fatalf("item %d: header (-whole +lazy):\n%s\ninput:\n%s", i, diff, in)
		}
	}
	positions := func(its []*resourcelist.Item) (out []int) {
		for _, it := range its {
			out = append(out, it.Position())
		}
		return out
	}
	for _, it := range fi[:min(3, len(fi))] {
		h := it.Header()
		want := positions(full.Select(func(o resourcelist.Header) bool { return o.Is(h.APIVersion, h.Kind) }))
		fresh, _ := resourcelist.Parse(in) // no header kept yet
		got := positions(fresh.SelectKind(h.APIVersion, h.Kind, func(resourcelist.Header) bool { return true }))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("SelectKind(%q, %q) (-Select +SelectKind):\n%s\ninput:\n%s", h.APIVersion, h.Kind, diff, in)
		}
		want = positions(full.Select(func(o resourcelist.Header) bool { return o.Path == h.Path || o.Path == "" }))
		fresh, _ = resourcelist.Parse(in)
		got = positions(fresh.SelectFile([]string{h.Path, ""}, func(resourcelist.Header) bool { return true }))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("SelectFile(%q) (-Select +SelectFile):\n%s\ninput:\n%s", h.Path, diff, in)
		}
	}
	if d := sameNodes(ynode(full.FunctionConfig()), ynode(lazy.FunctionConfig()), "functionConfig"); d != "" {
		t.Fatalf("functionConfig differs: %s\ninput:\n%s", d, in)
	}
	write := func(what string) {
		t.Helper()
		lo, errL := lazy.Write()
		fo, errF := full.Write()
		if fmt.Sprint(errL) != fmt.Sprint(errF) || string(lo) != string(fo) {
			t.Fatalf("%s: output differs (-whole +lazy), errors %v, %v:\n%s\ninput:\n%s", what, errF, errL, cmp.Diff(string(fo), string(lo)), in)
		}
	}
	write("untouched")
	// Read the items from the last, so that entries glued to later ones
	// are read first.
	for i := len(li) - 1; i >= 0; i-- {
		if d := sameNodes(fi[i].Node().YNode(), li[i].Node().YNode(), fmt.Sprintf("item %d", i)); d != "" {
			t.Fatalf("item %d: nodes differ: %s\ninput:\n%s", i, d, in)
		}
		if diff := cmp.Diff(fi[i].Header(), li[i].Header()); diff != "" {
			t.Fatalf("item %d read: header (-whole +lazy):\n%s\ninput:\n%s", i, diff, in)
		}
	}
	write("read")
	for _, rl := range []*resourcelist.ResourceList{lazy, full} {
		its := rl.Select(all)
		for i, it := range its {
			switch i % 3 {
			case 0:
				if it.Node().YNode().Kind == yaml.MappingNode {
					_ = fieldpath.SetString(it.Edit(), fieldpath.Parse("metadata.annotations.example\\.com/seen"), "yes")
				}
			case 1:
				if i%2 == 1 {
					rl.Delete(it)
				}
			}
		}
		if _, err := rl.Append(yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n"), "new.yaml"); err != nil {
			t.Fatal(err)
		}
	}
	write("edited")
}

func ynode(n *yaml.RNode) *yaml.Node {
	if n == nil {
		return nil
	}
	return n.YNode()
}

// lazySeeds are inputs in every shape the lazy reading must get right.
var lazySeeds = []string{
	odd,
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a # the name\n    namespace: ns\n    labels:\n      app: web\n      'quoted': \"v\\\"1\"\n    annotations:\n      config.kubernetes.io/path: 'a.yaml'\n      config.kubernetes.io/index: '2'\n      empty:\n      null: ~\n  data:\n    script: |\n      #!/bin/sh\n      echo \"hi\n\n    n: 3 # three\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: b, labels: {app: web, tier: \"1\"}}\n  spec:\n    containers:\n    - name: c\n      args: [\"--a\", '--b', c]\n      env:\n      - {name: X, value: \"no\"}\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n  data: {}\n",
	"apiVersion: config.kubernetes.io/v1\r\nkind: ResourceList\r\nitems:\r\n  - apiVersion: v1\r\n    kind: A\r\n    metadata:\r\n      name: a\r\n  - kind: B\r\n    metadata:\r\n      name: b\r\n",
	"\xef\xbb\xbfapiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n# lead\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n  # inside end\n# between\n\n# before second\n- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n# after the last\n",
	"items:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n    name: b\napiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {kind: X}\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- &a\n  apiVersion: v1\n  kind: A\n- *a\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: \"multi\n      line\"\n- apiVersion: v1\n  kind: B\n  spec:\n    x: [a,\n  b]\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n  data:\n    k: a\tb\n    l: >-\n      folded\n      text\n- - nested\n- scalar\n-\n- {apiVersion: v1, kind: C, metadata: {name: c, annotations: {a: b}}}\n...\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- metadata:\n    name: late\n  spec:\n    a: 1\n  kind: K\n  apiVersion: v1\nresults:\n- message: earlier\n  severity: info\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
	`{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"apiVersion":"v1","kind":"A","metadata":{"name":"a"}}]}`,
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: A\n  spec: {a: 1, b: {c: 1, 'c': 2}}\n- kind: B\n  data:\n    a: 1\n    b: 2\n    c: 3\n    d: 4\n    e: 5\n    f: 6\n    g: 7\n    h: 8\n    i: 9\n    \"a\": 10\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\nfunctionConfig: {data: {x: 1, x: 2}}\nkind: ResourceList\n",
}

func TestLazy(t *testing.T) {
	t.Parallel()
	for i, in := range lazySeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			checkLazy(t, []byte(in))
		})
	}
}

// A list long enough to be scanned on several goroutines reads as the
// whole parse does, entries the scan leaves to yaml.v3 and comments
// between entries included.
func TestLazyLarge(t *testing.T) {
	// Not parallel: it sets GOMAXPROCS.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for i := range 1500 {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: A\n  metadata:\n    name: a-%d # the name\n    labels: {x: \"1\"}\n  # inside end\n# between\n\n", i)
		fmt.Fprintf(&b, "- - nested\n# before empty\n-\n# between\n- {apiVersion: v1, kind: C, metadata: {name: c-%d}}\n- scalar\n", i)
	}
	in := []byte(b.String())
	rl, err := resourcelist.Parse(in)
	if err != nil || !rl.Lazy() {
		t.Fatalf("the list is not read lazily: %v", err)
	}
	checkLazy(t, in)
}

// checkSplitFirst fails when the lazy reading of a large list (split
// first, then scanned) differs from Parse's of in (lazy): whether it reads
// the list lazily, which items it scans, their headers.
func checkSplitFirst(t *testing.T, in []byte, lazy *resourcelist.ResourceList) {
	t.Helper()
	split := resourcelist.ParseSplitFirst(in)
	if (split != nil) != lazy.Lazy() {
		t.Fatalf("read lazily: split first %v, Parse %v\ninput:\n%s", split != nil, lazy.Lazy(), in)
	}
	if split == nil {
		return
	}
	all := func(resourcelist.Header) bool { return true }
	var want, got []resourcelist.Header
	for _, it := range lazy.Select(all) {
		want = append(want, it.Header())
	}
	for _, it := range split.Select(all) {
		got = append(got, it.Header())
	}
	n, of := lazy.Scanned()
	sn, sof := split.Scanned()
	if diff := cmp.Diff(want, got); diff != "" || n != sn || of != sof {
		t.Fatalf("headers (-Parse +split first), scanned %d of %d, %d of %d:\n%s\ninput:\n%s", n, of, sn, sof, diff, in)
	}
}

// FuzzLazy holds the lazy reading to reading the list whole with yaml.v3.
func FuzzLazy(f *testing.F) {
	for _, s := range lazySeeds {
		f.Add([]byte(s))
	}
	for dir := range golden {
		krmtest.Seed(f, filepath.Join("..", dir, "testdata"))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if strings.Count(string(in), "*") > 20 {
			return // alias expansion: the whole parse is the same for both
		}
		checkLazy(t, in)
	})
}

// TestScanValue: the functionConfig the scan builds is the one yaml.v3
// parses, every field of every node; the scan builds the common ones, and
// leaves the rest to yaml.v3.
func TestScanValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text    string
		scanned bool
	}{
		{"functionConfig:\n  apiVersion: fn.kptkit.dev/v1alpha1\n  kind: SetPackageContext\n  metadata: {name: ctx}\n  data: {zone: b, env: prod}\n  create: true\n", true},
		{"functionConfig:\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: setters\n    data:\n      replicas: \"5\"\n      tag: '1.28'\n", true},
		{"functionConfig:\n  kind: X\n  list:\n  - a\n  - b: c\n  text: |\n    line\n", true},
		{"functionConfig:\r\n  kind: X\r\n  a: 1\r\n", false},
		{"functionConfig:\n  kind: X\n  a: 1\n\n", true},
		{"functionConfig:\n  kind: X # a comment\n", true},
		{"functionConfig:\n  # a comment\n  kind: X\n", false},
		{"functionConfig:\n  kind: X\n  kind: Y\n", false},
		{"functionConfig:\n  kind: &a X\n  b: *a\n", false},
		{"functionConfig:\n - a\n", false},
		{"functionConfig:\n  - a\n", false},
		{"functionConfig:\n kind: X\n", false},
		{"functionConfig: {kind: X}\n", false},
		{"functionConfig: # c\n  kind: X\n", false},
		{"functionConfig:\n  a\n", false},
		{"functionConfig:\n", false},
	} {
		scanned := resourcelist.ScanValue([]byte(tc.text), 7)
		if (scanned != nil) != tc.scanned {
			t.Errorf("%q: scanned %v, want %v", tc.text, scanned != nil, tc.scanned)
		}
		if scanned == nil {
			continue
		}
		if d := sameNodes(resourcelist.ParseValue([]byte(tc.text), 7), scanned, "functionConfig"); d != "" {
			t.Errorf("%q: the scan's nodes differ from yaml.v3's: %s", tc.text, d)
		}
	}
}
