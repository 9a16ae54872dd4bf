package resourcelist

import (
	"bytes"
	"strings"
)

// ParseDocuments reads YAML documents as the items of one ResourceList,
// lazily (Parse): each document's text (a mapping written from column 0,
// as a document of a file is) becomes an entry of the items, and the
// functionConfig's text, when not empty, the functionConfig. A caller that
// holds thousands of objects as their text (a fleet's cluster) reads their
// headers this way, and their nodes only when it asks for them. The
// ResourceList keeps its own copy of the text.
func ParseDocuments(docs []string, fnConfig string) (*ResourceList, error) {
	size := len(APIVersion) + len(Kind) + 64 + len(fnConfig) + len(fnConfig)/8
	for _, d := range docs {
		size += len(d) + len(d)/8 + 3
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString("apiVersion: " + APIVersion + "\nkind: " + Kind + "\n")
	if len(docs) == 0 {
		b.WriteString("items: []\n")
	} else {
		b.WriteString("items:\n")
		for _, d := range docs {
			writeIndented(&b, d, "- ")
		}
	}
	if fnConfig != "" {
		b.WriteString("functionConfig:\n")
		writeIndented(&b, fnConfig, "  ")
	}
	return Parse(b.Bytes())
}

// writeIndented writes text with its first line after first and the others
// indented by two spaces (an empty line stays empty), ending in a newline.
func writeIndented(b *bytes.Buffer, text, first string) {
	text = strings.TrimSuffix(text, "\n")
	for i := 0; ; i++ {
		line, rest, more := strings.Cut(text, "\n")
		switch {
		case i == 0:
			b.WriteString(first)
		case line != "":
			b.WriteString("  ")
		}
		b.WriteString(line)
		b.WriteByte('\n')
		if !more {
			return
		}
		text = rest
	}
}
