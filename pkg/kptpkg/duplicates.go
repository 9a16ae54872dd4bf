package kptpkg

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/decode"
)

// DuplicateKeys returns an error naming every key written twice in a
// mapping of the documents of one file (nil when there is none), each with
// its resource and the lines of both keys, in yaml.v3's words:
// `ConfigMap/a: line 5: mapping key "name" already defined at line 4`.
// yaml.v3 refuses such a key when it decodes into a Go value; kyaml's
// reader, and so kpt, keeps the first silently, and whoever reads the
// resource next may take either.
//
// docs are as kio.ByteReader reads them from data, each document parsed on
// its own: the lines given are the file's. With data nil, they are the
// nodes' own (one decoder read the whole file).
func DuplicateKeys(data []byte, docs []*yaml.RNode) error {
	var dups [][]decode.Duplicate
	found := false
	for _, d := range docs {
		ds := decode.Duplicates(d.YNode(), "")
		dups, found = append(dups, ds), found || len(ds) > 0
	}
	if !found {
		return nil
	}
	starts := documentLines(data, len(docs))
	var msgs []string
	for i, ds := range dups {
		for _, d := range ds {
			d.Line, d.First = d.Line+starts[i], d.First+starts[i]
			msgs = append(msgs, fmt.Sprintf("%s: %v", document(docs[i], i), d))
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

// ReadDocuments reads the documents of one file with r (its Reader is set
// to data), and refuses a key written twice in a mapping of any of them
// (DuplicateKeys), or of the List or ResourceList r unwraps.
func ReadDocuments(r *kio.ByteReader, data []byte) ([]*yaml.RNode, error) {
	r.Reader = bytes.NewReader(data)
	docs, err := r.Read()
	if err != nil {
		return nil, err
	}
	if err := DuplicateKeys(data, docs); err != nil {
		return nil, err
	}
	if r.WrappingKind != "" {
		return docs, wrapperKeys(r.WrappingKind, data)
	}
	return docs, nil
}

// wrapperKeys returns an error naming every key written twice in the List
// that data holds, outside its items (nil when there is none).
func wrapperKeys(kind string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil // kio.ByteReader read it: not to be met
	}
	c := doc.Content[0].Content
	keys := make([]*yaml.Node, len(c)) // the keys alone
	for i := 0; i < len(c); i += 2 {
		keys[i] = c[i]
	}
	dups := decode.Duplicates(&yaml.Node{Kind: yaml.MappingNode, Content: keys}, "")
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value != "items" {
			dups = append(dups, decode.Duplicates(c[i+1], c[i].Value)...)
		}
	}
	if len(dups) == 0 {
		return nil
	}
	slices.SortStableFunc(dups, func(a, b decode.Duplicate) int { return cmp.Compare(a.Line, b.Line) })
	msgs := make([]string, len(dups))
	for i, d := range dups {
		msgs[i] = fmt.Sprintf("%s: %v", kind, d)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// document names a document of a file for messages: Kind/name, or its
// index when it has no kind or name.
func document(n *yaml.RNode, i int) string {
	kind, name := n.GetKind(), n.GetName()
	if kind == "" || name == "" {
		return fmt.Sprintf("document %d", i)
	}
	return kind + "/" + name
}

// separator is where kio.ByteReader splits a file into documents.
var separator = regexp.MustCompile(`\n---.*\n`)

// documentLines returns, for each of the n documents kio.ByteReader reads
// from data, the lines before it in the file (all 0 when data is nil); the
// items of a List it unwrapped share their List's. The reader splits the
// file at "---" lines and leaves out empty documents; so does this, only
// on the way to an error.
func documentLines(data []byte, n int) []int {
	starts := make([]int, n)
	if data == nil {
		return starts
	}
	var kept []int
	prev := 0
	for _, loc := range append(separator.FindAllIndex(data, -1), []int{len(data), len(data)}) {
		if !emptyDocument(data[prev:loc[0]]) {
			kept = append(kept, bytes.Count(data[:prev], []byte("\n")))
		}
		prev = loc[1]
	}
	switch {
	case len(kept) == n:
		copy(starts, kept)
	case len(kept) == 1: // the items of a List
		for i := range starts {
			starts[i] = kept[0]
		}
	}
	return starts
}

// emptyDocument reports whether kio.ByteReader leaves a document out.
func emptyDocument(doc []byte) bool {
	var n yaml.Node
	err := yaml.NewDecoder(bytes.NewReader(doc)).Decode(&n)
	return errors.Is(err, io.EOF) || err == nil && (yaml.IsYNodeEmptyDoc(&n) || yaml.IsMissingOrNull(yaml.NewRNode(&n)))
}
