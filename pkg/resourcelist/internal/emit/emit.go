// Package emit writes YAML for package resourcelist: a small emitter that
// writes plain data exactly as yaml.v3's encoder does with kpt's settings
// (2-space indent, compact sequences), yaml.v3's encoder where it declines
// (Encode, Item), the quotes a YAML 1.1 reader needs (QuoteAmbiguous,
// BlockStyle), and the Plan of a list's output: ranges of the input and
// emitted text, copied whole or streamed. TestEmitCorpus and FuzzEmit hold
// the emitter to yaml.v3's bytes.
package emit

import (
	"bytes"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/resourcelist/internal/scan"
)

// MaxDepth is how deep the emitter writes: a deeper tree goes to yaml.v3.
const MaxDepth = 100

// Document writes a document's root node n as yaml.v3 with kpt's settings
// writes it, or writes nothing and returns false where the emitter
// declines.
func Document(b *bytes.Buffer, n *yaml.Node) bool { return emit(b, n) }

// emit writes n in block style exactly as yaml.v3's encoder does with kpt's
// settings (2-space indent, compact sequences), for the plain data most
// items are: mappings, sequences and one-line scalars without anchors or
// custom tags; also line comments after scalar values, literal block
// scalars as mapping values, and flow lists of scalars. It returns false, having written
// nothing, for anything else; the caller then uses yaml.v3. yaml.v3 sets up
// an emitter per document whose event queue grows with the document, which
// makes encoding many small items cost far more than parsing them.
// FuzzEmit holds the two to the same bytes.
func emit(b *bytes.Buffer, n *yaml.Node) bool {
	if !Emittable(n, 0) {
		return false
	}
	start := b.Len()
	var e Emitter
	e.b = b
	if !e.node(n, 0, false) {
		b.Truncate(start)
		return false
	}
	return true
}

// Emittable reports whether the emitter writes n, at depth in a tree:
// block collections, flow lists of one-line scalars, one-line scalars and
// literal block scalars (as mapping values); no anchors, aliases or tags
// beyond the core ones; no comments but a one-line comment after a
// one-line scalar value.
func Emittable(n *yaml.Node, depth int) bool {
	return emittableAs(n, depth, asKey)
}

// Where a node sits, for what emit allows there.
const (
	asKey     = iota // a mapping key, or a flow list's element: no comments, one line
	asValue          // a mapping value: a line comment, or a literal block
	asElement        // a block sequence's element: a line comment
)

func emittableAs(n *yaml.Node, depth, at int) bool {
	if depth > MaxDepth || n.FootComment != "" || n.Anchor != "" || n.HeadComment != "" && !elementHead(n, at) {
		return false
	}
	if n.LineComment != "" && (at == asKey || n.Kind != yaml.ScalarNode || !oneLineComment(n.LineComment)) {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		if n.Tag != "" && n.Tag != yaml.NodeTagMap {
			return false
		}
		if n.Style == yaml.FlowStyle && len(n.Content) > 0 {
			return at == asValue && flowPairs(n)
		}
		if !blockOrEmpty(n) {
			return false
		}
		for i, c := range n.Content {
			if i%2 == 0 && (c.Kind != yaml.ScalarNode || !emittableKey(c, n.Content, i, depth+1)) {
				return false
			}
			if i%2 == 1 && !emittableAs(c, depth+1, asValue) {
				return false
			}
		}
		return len(n.Content)%2 == 0
	case yaml.SequenceNode:
		if n.Tag != "" && n.Tag != yaml.NodeTagSeq {
			return false
		}
		if n.Style == yaml.FlowStyle && len(n.Content) > 0 {
			return at == asValue && flowList(n)
		}
		if !blockOrEmpty(n) {
			return false
		}
		for _, c := range n.Content {
			if c.Kind == yaml.SequenceNode || !emittableAs(c, depth+1, asElement) {
				return false
			}
		}
		return true
	case yaml.ScalarNode:
		if literal(n) {
			return at == asValue && n.LineComment == "" && literalSafe(n.Value)
		}
		return strings.IndexByte(n.Value, '\n') < 0 && strings.IndexByte(n.Value, '\r') < 0 && coreTag(n.Tag) &&
			n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0
	}
	return false
}

// emittableKey reports whether the emitter writes the key c of a
// mapping's content at i: as asKey allows, or with a one-line comment
// when its value is a block collection that is not empty, which yaml.v3
// writes after the colon (kpt's `metadata: # kpt-merge: /name`).
func emittableKey(c *yaml.Node, content []*yaml.Node, i, depth int) bool {
	if c.LineComment == "" || i+1 >= len(content) {
		return emittableAs(c, depth, asKey)
	}
	v := content[i+1]
	if (v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode) || v.Style != 0 || len(v.Content) == 0 || !oneLineComment(c.LineComment) {
		return false
	}
	plain := *c
	plain.LineComment = ""
	return emittableAs(&plain, depth, asKey)
}

// elementHead: a head comment the emitter writes, one on a block
// mapping that is a block sequence's element (kptkit's `# added by` above
// a function it prepends to a pipeline), each line a one-line comment,
// which yaml.v3 writes line by line at the dash's indent.
func elementHead(n *yaml.Node, at int) bool {
	if at != asElement || n.Kind != yaml.MappingNode || n.Style != 0 || len(n.Content) == 0 {
		return false
	}
	for line := range strings.SplitSeq(n.HeadComment, "\n") {
		if !oneLineComment(line) {
			return false
		}
	}
	return true
}

// oneLineComment: a comment yaml.v3 writes as it is, on the line.
func oneLineComment(c string) bool {
	return strings.HasPrefix(c, "#") && printableASCII(c)
}

// literal reports whether yaml.v3 would choose the literal block style for
// a scalar: asked for, or a string of several lines.
func literal(n *yaml.Node) bool {
	return (n.Tag == "" || n.Tag == yaml.NodeTagString) &&
		(n.Style == yaml.LiteralStyle || n.Style == 0 && strings.IndexByte(n.Value, '\n') >= 0)
}

// literalSafe reports whether yaml.v3 writes v as a plain literal block (no
// indentation or keep indicator, not double-quoted instead): printable
// ASCII lines, none ending in a space, not starting with a space or a line
// break, ending in at most one line break.
func literalSafe(v string) bool {
	if v == "" || v[0] == ' ' || v[0] == '\n' || v[len(v)-1] == ' ' || strings.HasSuffix(v, "\n\n") || strings.Contains(v, " \n") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\n' {
			return false
		}
	}
	return true
}

// flowList reports whether emit writes a flow list: one-line scalars, no
// comments, each either quoted or plain without flow indicators.
func flowList(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || !emittableAs(c, 1, asKey) || literal(c) {
			return false
		}
		if c.Style == 0 && strings.ContainsAny(c.Value, ",?[]{}:#'\"") {
			return false
		}
	}
	return true
}

// flowPairs reports whether emit writes a flow mapping: keys and values
// as flowList takes its elements.
func flowPairs(n *yaml.Node) bool {
	if len(n.Content)%2 != 0 {
		return false
	}
	return flowList(n)
}

// blockOrEmpty: a block collection, or an empty one ({} and [] either way).
func blockOrEmpty(n *yaml.Node) bool {
	return n.Style == 0 || (n.Style == yaml.FlowStyle && len(n.Content) == 0)
}

func coreTag(tag string) bool {
	switch tag {
	case "", yaml.NodeTagString, yaml.NodeTagInt, yaml.NodeTagBool, yaml.NodeTagNull, yaml.NodeTagFloat:
		return true
	}
	return false
}

// Emitter writes nodes and scalars into a buffer, piece by piece: what
// Document and Entry use, and how resourcelist.Text writes an item field by
// field.
type Emitter struct {
	b *bytes.Buffer
	// quote writes the plain strings YAML 1.1 would misread double-quoted,
	// as QuoteAmbiguous would have marked them, for nodes it must not change.
	quote bool
}

// Quoting returns an Emitter into b that writes double-quoted the plain
// strings a YAML 1.1 reader would misread, as QuoteAmbiguous marks them,
// without changing the nodes.
func Quoting(b *bytes.Buffer) Emitter { return Emitter{b: b, quote: true} }

// Indent writes n spaces.
func (e *Emitter) Indent(n int) {
	for range n {
		e.b.WriteByte(' ')
	}
}

// node writes n at indent; inline means the line is already started (after
// "- " or "key: ").
func (e *Emitter) node(n *yaml.Node, indent int, inline bool) bool {
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			e.b.WriteString("{}\n")
			return true
		}
		for i := 0; i < len(n.Content); i += 2 {
			if i > 0 || !inline {
				e.Indent(indent)
			}
			if !e.scalar(n.Content[i], true) || !e.value(n.Content[i+1], indent, n.Content[i].LineComment) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			e.b.WriteString("[]\n")
			return true
		}
		for i, c := range n.Content {
			if c.HeadComment != "" {
				if i == 0 && inline {
					return false
				}
				for line := range strings.SplitSeq(c.HeadComment, "\n") {
					e.Indent(indent)
					e.b.WriteString(line)
					e.b.WriteByte('\n')
				}
			}
			if i > 0 || !inline {
				e.Indent(indent)
			}
			e.b.WriteString("- ")
			if c.Kind == yaml.MappingNode && len(c.Content) > 0 {
				if !e.node(c, indent+2, true) {
					return false
				}
				continue
			}
			if !e.node(c, indent+2, true) {
				return false
			}
		}
		return true
	default:
		if !e.scalar(n, false) {
			return false
		}
		e.lineEnd(n)
		return true
	}
}

// lineEnd ends a scalar's line, with its line comment.
func (e *Emitter) lineEnd(n *yaml.Node) {
	if n.LineComment != "" {
		e.b.WriteByte(' ')
		e.b.WriteString(n.LineComment)
	}
	e.b.WriteByte('\n')
}

// flow writes a flow list of scalars, [a, "b"], or a flow mapping of
// scalars, {a: b, c: "d"}.
func (e *Emitter) flow(n *yaml.Node) bool {
	open, sep, end := byte('['), ", ", "]\n"
	if n.Kind == yaml.MappingNode {
		open, end = '{', "}\n"
	}
	e.b.WriteByte(open)
	for i, c := range n.Content {
		switch {
		case n.Kind == yaml.MappingNode && i%2 == 1:
			e.b.WriteString(": ")
		case i > 0:
			e.b.WriteString(sep)
		}
		start := e.b.Len()
		if !e.scalar(c, n.Kind == yaml.MappingNode && i%2 == 0) {
			return false
		}
		// yaml.v3 quotes in flow what it may write plain in block.
		if c.Style == 0 && e.b.Len() > start && e.b.Bytes()[start] == '\'' {
			return false
		}
	}
	e.b.WriteString(end)
	return true
}

// literal writes a literal block scalar's lines at indent, after its key.
func (e *Emitter) literal(v string, indent int) {
	e.b.WriteString(": |")
	if !strings.HasSuffix(v, "\n") {
		e.b.WriteByte('-')
	}
	e.b.WriteByte('\n')
	for line := range strings.Lines(v) {
		if line != "\n" {
			e.Indent(indent)
		}
		e.b.WriteString(line)
	}
	if !strings.HasSuffix(v, "\n") {
		e.b.WriteByte('\n')
	}
}

// Value writes a mapping value after its key (written at indent), or
// returns false where it cannot be sure to write it as yaml.v3 does.
func (e *Emitter) Value(v *yaml.Node, indent int) bool { return e.value(v, indent, "") }

// value writes a mapping value after its key, whose line comment (on a
// key whose value is a block collection) is note.
func (e *Emitter) value(v *yaml.Node, indent int, note string) bool {
	flow := v.Style == yaml.FlowStyle && len(v.Content) > 0
	switch {
	case note != "" && (flow || len(v.Content) == 0 || v.Kind == yaml.ScalarNode):
		return false
	case v.Kind == yaml.MappingNode && flow, v.Kind == yaml.SequenceNode && flow:
		e.b.WriteString(": ")
		return e.flow(v)
	case v.Kind == yaml.MappingNode && len(v.Content) > 0:
		e.colon(note)
		return e.node(v, indent+2, false)
	case v.Kind == yaml.SequenceNode && len(v.Content) > 0:
		e.colon(note)
		return e.node(v, indent, false) // compact: dashes at the key's indent
	case v.Kind == yaml.ScalarNode && literal(v):
		e.literal(v.Value, indent+2)
		return true
	default:
		e.b.WriteString(": ")
		return e.node(v, indent, true)
	}
}

// colon ends a key whose value starts on the next line, with the key's
// line comment.
func (e *Emitter) colon(note string) {
	e.b.WriteByte(':')
	if note != "" {
		e.b.WriteByte(' ')
		e.b.WriteString(note)
	}
	e.b.WriteByte('\n')
}

// scalar writes a one-line scalar in the style yaml.v3 would choose, or
// returns false where it cannot be sure which.
func (e *Emitter) scalar(n *yaml.Node, key bool) bool {
	style := n.Style
	if e.quote && style == 0 && n.Tag == yaml.NodeTagString && scan.Ambiguous(n.Value) {
		style = yaml.DoubleQuotedStyle
	}
	return e.Text(n.Value, n.Tag, style, key)
}

// Text writes the scalar v of the given tag and style in the style
// yaml.v3 would choose (a key: key), or returns false where it cannot be
// sure which.
func (e *Emitter) Text(v, tag string, style yaml.Style, key bool) bool {
	if style == 0 && (tag == "" || tag == yaml.NodeTagString) && word(v) {
		e.b.WriteString(v) // what the checks below decide, sooner
		return true
	}
	if !printableASCII(v) || (key && len(v) > 128) {
		return false
	}
	switch {
	case tag != "" && tag != yaml.NodeTagString:
		// A typed scalar is written untagged only when it reads back as its type.
		if v == "" || scan.ResolveTag(v) != tag || style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			return false
		}
	case style != 0:
	case tag == yaml.NodeTagString:
		switch tag := scan.ResolveTag(v); {
		case tag == "":
			return false
		case tag != yaml.NodeTagString:
			style = yaml.DoubleQuotedStyle
		case plainSafe(v):
		case needsQuotes(v):
			style = yaml.SingleQuotedStyle
		default:
			return false
		}
	case plainSafe(v):
	case needsQuotes(v):
		style = yaml.SingleQuotedStyle
	default:
		return false
	}
	switch {
	case style == 0:
		e.b.WriteString(v)
	case style == yaml.DoubleQuotedStyle:
		e.b.WriteByte('"')
		for i := 0; i < len(v); i++ {
			if v[i] == '"' || v[i] == '\\' {
				e.b.WriteByte('\\')
			}
			e.b.WriteByte(v[i])
		}
		e.b.WriteByte('"')
	case style == yaml.SingleQuotedStyle && v != "" && v[0] != ' ' && v[len(v)-1] != ' ':
		e.b.WriteByte('\'')
		e.b.WriteString(strings.ReplaceAll(v, "'", "''"))
		e.b.WriteByte('\'')
	default:
		return false
	}
	return true
}

// needsQuotes reports whether yaml.v3 surely cannot write v plain in block
// context (an indicator first, ": " or " #" inside, ":" last) while a
// single-quoted v is fine (no spaces at its ends).
func needsQuotes(v string) bool {
	if v == "" || v[0] == ' ' || v[len(v)-1] == ' ' {
		return false
	}
	return strings.IndexByte("#,[]{}&*!|>'\"%@`", v[0]) >= 0 ||
		strings.Contains(v, ": ") || strings.Contains(v, " #") || v[len(v)-1] == ':'
}

// plainSafe reports whether a string can be written plain in block context
// and read back as the same string: a conservative subset of what YAML
// allows (characters, first character, indicators, spaces).
func plainSafe(v string) bool {
	if v == "" || v[0] == ' ' || v[len(v)-1] == ' ' || v[len(v)-1] == ':' ||
		strings.HasPrefix(v, "---") || strings.HasPrefix(v, "...") {
		return false
	}
	switch c := v[0]; {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '/', c == '.', c == '_':
	default:
		return false
	}
	// One pass: printable ASCII (no tab), no ": ", no " #".
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c < 0x20 || c > 0x7e:
			return false
		case c == ':' && i+1 < len(v) && v[i+1] == ' ', c == '#' && i > 0 && v[i-1] == ' ':
			return false
		}
	}
	return true
}

// word reports whether v is a string every YAML reader reads as that string
// written plain: 6 to 128 letters, digits, '-', '.', '_' and '/', a letter
// first (most names, keys and values of new items are).
func word(v string) bool {
	if len(v) < 6 || len(v) > 128 || !(v[0] >= 'a' && v[0] <= 'z' || v[0] >= 'A' && v[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == '/':
		default:
			return false
		}
	}
	return true
}

func printableASCII(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}
