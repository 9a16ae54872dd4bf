package kptpkg

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// ReadTexts reads the documents of one file as ReadDocuments does with a
// reader that adds no annotations, and returns each document as its text
// instead of its nodes: a caller that keeps thousands of objects (a fleet's
// cluster) holds their bytes, and parses an object when it needs it
// (resourcelist.ParseDocuments). A file of plain documents (each a mapping
// from its first line, separated by `---` lines) is split as it is written
// and only scanned, which checks that every document parses; any other
// file (directives, comments before a document, a List to unwrap, Windows
// line ends, a key written twice...) is read by kyaml as ReadDocuments
// reads it, with its errors, and each document written as kyaml writes it.
func ReadTexts(data []byte) ([]string, error) {
	if docs, ok := splitPlain(string(data)); ok {
		if rl, err := resourcelist.ParseDocuments(docs, ""); err == nil && !wraps(rl) {
			return docs, nil
		}
	}
	nodes, err := ReadDocuments(&kio.ByteReader{OmitReaderAnnotations: true}, data)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(nodes))
	for i, n := range nodes {
		if texts[i], err = n.String(); err != nil {
			return nil, fmt.Errorf("cannot write document %d: %w", i, err)
		}
	}
	return texts, nil
}

// splitPlain splits a file of plain documents at its `---` lines; false
// when the file holds anything kyaml's reader might read otherwise than
// as the documents' text: a directive, a document end marker, a separator
// with more on its line, a carriage return, an empty document, or a
// document whose first line is not a key at column 0.
func splitPlain(data string) ([]string, bool) {
	if strings.ContainsRune(data, '\r') {
		return nil, false
	}
	var docs []string
	start, at := 0, 0
	cut := func(end int) bool {
		doc := data[start:end]
		start = min(end+4, len(data))
		if doc == "" && len(docs) == 0 && end == 0 {
			return true // a leading separator
		}
		if !plainStart(doc) {
			return false
		}
		docs = append(docs, doc)
		return true
	}
	for at < len(data) {
		line, _, _ := strings.Cut(data[at:], "\n")
		switch {
		case line == "---":
			if !cut(at) {
				return nil, false
			}
		case strings.HasPrefix(line, "---"), strings.HasPrefix(line, "..."), strings.HasPrefix(line, "%"):
			return nil, false
		}
		at += len(line) + 1
	}
	if strings.Trim(data[start:], " \n") != "" && !cut(len(data)) {
		return nil, false
	}
	return docs, true
}

// plainStart reports whether a document starts with a key at column 0:
// a letter, then a colon on its line.
func plainStart(doc string) bool {
	line, _, _ := strings.Cut(doc, "\n")
	if line == "" {
		return false
	}
	c := line[0]
	return (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && strings.Contains(line, ":")
}

// wraps reports whether an item is a List or ResourceList, which kyaml's
// reader would unwrap.
func wraps(rl *resourcelist.ResourceList) bool {
	return len(rl.Select(func(h resourcelist.Header) bool {
		return h.Kind == "List" || h.Kind == kio.ResourceListKind
	})) > 0
}
