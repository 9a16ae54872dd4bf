package resourcelist

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/result"
)

// layout records where the input's parts sit, line by line, so that Write can
// copy every part nobody changed as its original bytes. It is only usable
// (ok) for block-style input: a flow-style or JSON ResourceList is written
// anew as a whole.
type layout struct {
	ok     bool
	lines  [][]byte // the input's lines, each with its line break
	keys   []rootKey
	seqCol int   // column (1-based) of the items' dashes
	dash   []int // line (1-based) of each item's dash
	above  []int // first line of the comment block right above each dash
}

type rootKey struct {
	name string
	line int // 1-based
	val  *yaml.Node
}

func (rl *ResourceList) layout() *layout {
	l := &layout{}
	if rl.src == nil || rl.doc.Style&yaml.FlowStyle != 0 {
		return l
	}
	l.lines = bytes.SplitAfter(rl.src, []byte("\n"))
	if n := len(l.lines); n > 0 && len(l.lines[n-1]) == 0 {
		l.lines = l.lines[:n-1]
	}
	for _, line := range l.lines {
		if bytes.Equal(bytes.TrimRight(line, "\r\n"), []byte("...")) {
			return l
		}
	}
	// A lone carriage return breaks lines for YAML but not here: the
	// parser's line numbers would not be these lines.
	if cr := bytes.Count(rl.src, []byte("\r")); cr > 0 && cr != bytes.Count(rl.src, []byte("\r\n")) {
		return l
	}
	prev := 0
	c := rl.doc.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Line <= prev {
			return l
		}
		prev = c[i].Line
		l.keys = append(l.keys, rootKey{name: c[i].Value, line: c[i].Line, val: c[i+1]})
	}
	for i, k := range l.keys {
		if k.name != "items" {
			continue
		}
		seq := k.val
		if seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || len(seq.Content) == 0 {
			break // the items are written anew; the rest can still be copied
		}
		end := len(l.lines) + 1
		if i+1 < len(l.keys) {
			end = l.keys[i+1].line
		}
		if !l.findDashes(seq, k.line, end) {
			return l
		}
	}
	l.ok = true
	return l
}

// findDashes finds the line of each item's "-" indicator: the nearest line at
// or above the item's first token with a "-" at the sequence's column and
// only spaces before it.
func (l *layout) findDashes(seq *yaml.Node, keyLine, end int) bool {
	l.seqCol = seq.Column
	prev := keyLine
	for _, n := range seq.Content {
		found := 0
		for ln := n.Line; ln > prev; ln-- {
			if isDashLine(l.lines[ln-1], l.seqCol) {
				found = ln
				break
			}
		}
		if found == 0 || found >= end {
			return false
		}
		above := found
		for above-1 > prev && isCommentLine(l.lines[above-2]) {
			above--
		}
		l.dash = append(l.dash, found)
		l.above = append(l.above, above)
		prev = found
	}
	return true
}

func isCommentLine(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("#"))
}

func isDashLine(line []byte, col int) bool {
	if len(line) < col || line[col-1] != '-' {
		return false
	}
	for _, c := range line[:col-1] {
		if c != ' ' {
			return false
		}
	}
	return len(line) == col || line[col] == ' ' || line[col] == '\n' || line[col] == '\r'
}

// Write returns the ResourceList as YAML: items in order (new ones last),
// every item nobody changed as its original bytes, then the results.
func (rl *ResourceList) Write() ([]byte, error) {
	l := rl.layout()
	if !l.ok {
		return rl.writeAnew()
	}
	var b bytes.Buffer
	b.Grow(len(rl.src) + rl.addedSize())
	first := len(l.lines) + 1
	if len(l.keys) > 0 {
		first = l.keys[0].line
	}
	writeLines(&b, l.lines[:first-1])
	hasItems := false
	for i, k := range l.keys {
		end := len(l.lines) + 1
		if i+1 < len(l.keys) {
			end = l.keys[i+1].line
		}
		switch k.name {
		case "results":
		case "items":
			hasItems = true
			if err := rl.writeItems(&b, l, k.line, end); err != nil {
				return nil, err
			}
		default:
			writeLines(&b, l.lines[k.line-1:end-1])
		}
	}
	if !hasItems {
		if err := rl.writeItemsAnew(&b); err != nil {
			return nil, err
		}
	}
	if err := rl.writeResults(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (rl *ResourceList) writeItems(b *bytes.Buffer, l *layout, keyLine, end int) error {
	if len(l.dash) == 0 {
		return rl.writeItemsAnew(b)
	}
	writeLines(b, l.lines[keyLine-1:l.dash[0]-1])
	for i, it := range rl.items {
		if it.pos < 0 {
			if it.state == stateDeleted {
				continue
			}
			if it.enc != nil && l.seqCol == 1 {
				b.Write(it.enc)
				continue
			}
			if err := rl.writeItem(b, it.Node().YNode(), l.seqCol, 0); err != nil {
				return err
			}
			continue
		}
		next := end
		if i+1 < len(l.dash) {
			next = l.dash[i+1]
		}
		if rl.unchanged(it) {
			writeLines(b, l.lines[l.dash[i]-1:next-1])
			continue
		}
		if it.state != stateDeleted {
			if err := rl.writeItem(b, it.node.YNode(), l.seqCol, l.dash[i]-l.above[i]); err != nil {
				return err
			}
		}
		// The comment above the next item's dash sits in this item's lines.
		if i+1 < len(l.dash) {
			writeLines(b, l.lines[l.above[i+1]-1:l.dash[i+1]-1])
		}
	}
	return nil
}

func (rl *ResourceList) writeItemsAnew(b *bytes.Buffer) error {
	if rl.Len() == 0 {
		b.WriteString("items: []\n")
		return nil
	}
	b.WriteString("items:\n")
	for _, it := range rl.items {
		if it.state == stateDeleted {
			continue
		}
		if it.enc != nil {
			b.Write(it.enc)
			continue
		}
		if err := rl.writeItem(b, it.node.YNode(), 1, 0); err != nil {
			return err
		}
	}
	return nil
}

func (rl *ResourceList) liveNodes() []*yaml.Node {
	var out []*yaml.Node
	for _, it := range rl.items {
		if it.state == stateDeleted {
			continue
		}
		if !rl.unchanged(it) {
			quoteAmbiguous(it.Node().YNode())
		}
		out = append(out, it.Node().YNode())
	}
	return out
}

// unchanged reports whether the item can be written as its original bytes.
func (rl *ResourceList) unchanged(it *Item) bool {
	switch it.state {
	case stateKept:
		return true
	case stateEdited:
		return bytes.Equal(it.snap, encodeNode(it.node.YNode()))
	default:
		return false
	}
}

// writeItem writes one sequence entry with its dash at column col, leaving
// out the first dropHead lines of its head comment (written already, from
// the lines above its dash).
func (rl *ResourceList) writeItem(b *bytes.Buffer, n *yaml.Node, col int, dropHead int) error {
	if dropHead > 0 && n.HeadComment != "" {
		c := *n
		lines := strings.SplitAfterN(c.HeadComment, "\n", dropHead+1)
		c.HeadComment = ""
		if len(lines) > dropHead {
			c.HeadComment = lines[dropHead]
		}
		n = &c
	}
	quoteAmbiguous(n)
	if emitEntry(b, n, col) {
		return nil
	}
	indent := strings.Repeat(" ", col-1)
	enc := encodeNode(n)
	if enc == nil {
		return fmt.Errorf("cannot encode an item")
	}
	for i, line := range bytes.SplitAfter(bytes.TrimSuffix(enc, []byte("\n")), []byte("\n")) {
		switch {
		case i == 0:
			b.WriteString(indent + "- ")
		case len(bytes.TrimSpace(line)) == 0:
			b.Write(line)
			continue
		default:
			b.WriteString(indent + "  ")
		}
		b.Write(line)
	}
	b.WriteByte('\n')
	return nil
}

// emitEntry writes a plain mapping (one the emitter takes) as a sequence
// entry with its dash at column col, in place, or writes nothing and
// returns false. The caller has quoted what YAML 1.1 would misread.
func emitEntry(b *bytes.Buffer, n *yaml.Node, col int) bool {
	if n.Kind != yaml.MappingNode || !emittable(n, 0) {
		return false
	}
	start := b.Len()
	b.WriteString(strings.Repeat(" ", col-1) + "- ")
	if e := (emitter{b: b}); e.node(n, col+1, true) {
		return true
	}
	b.Truncate(start)
	return false
}

// addedSize estimates the size of the items added, as written: exact for
// those added final, from their nodes for the others.
func (rl *ResourceList) addedSize() int {
	n := 0
	for _, it := range rl.items {
		switch {
		case it.pos >= 0 || it.state == stateDeleted:
		case it.enc != nil:
			n += len(it.enc)
		default:
			n += sizeHint(it.node.YNode(), 1)
		}
	}
	return n
}

// sizeHint estimates a node's size in block YAML at a depth: its scalars,
// each on a line of its own, indented.
func sizeHint(n *yaml.Node, depth int) int {
	if n == nil || depth > 100 {
		return 0
	}
	size := len(n.Value) + 2*depth + 3
	for _, c := range n.Content {
		size += sizeHint(c, depth+1)
	}
	return size
}

// decodeEntry parses an item added final from its entry in the list ("- "
// and the item indented by two). The text is this package's own encoding of
// a node that encoded without error: it parses.
func decodeEntry(entry []byte) *yaml.Node {
	var b bytes.Buffer
	b.Grow(len(entry))
	for i, line := range bytes.SplitAfter(entry, []byte("\n")) {
		if i == 0 {
			line = bytes.TrimPrefix(line, []byte("- "))
		} else {
			line = bytes.TrimPrefix(line, []byte("  "))
		}
		b.Write(line)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Content) != 1 {
		panic(fmt.Sprintf("resourcelist: an item added final does not parse back: %v", err))
	}
	return doc.Content[0]
}

func writeLines(b *bytes.Buffer, lines [][]byte) {
	for _, line := range lines {
		b.Write(line)
	}
	if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
		b.WriteByte('\n')
	}
}

// writeAnew encodes the whole ResourceList, for input whose layout cannot be
// kept (flow style, JSON): it comes out as plain block-style YAML.
func (rl *ResourceList) writeAnew() ([]byte, error) {
	if rl.doc.Style&yaml.FlowStyle != 0 {
		blockStyle(rl.doc)
		quoteAmbiguous(rl.doc) // blockStyle dropped the quotes of every item
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	hasItems := false
	for i := 0; i+1 < len(rl.doc.Content); i += 2 {
		k, v := rl.doc.Content[i], rl.doc.Content[i+1]
		switch k.Value {
		case "results":
			continue
		case "items":
			hasItems = true
			v = &yaml.Node{Kind: yaml.SequenceNode, Content: rl.liveNodes()}
		}
		doc.Content = append(doc.Content, k, v)
	}
	if !hasItems {
		doc.Content = append(doc.Content, str("items"), &yaml.Node{Kind: yaml.SequenceNode, Content: rl.liveNodes()})
	}
	res, err := rl.resultNodes()
	if err != nil {
		return nil, err
	}
	if len(res) > 0 {
		doc.Content = append(doc.Content, str("results"), &yaml.Node{Kind: yaml.SequenceNode, Content: res})
	}
	out := encodeNode(doc)
	if out == nil {
		return nil, fmt.Errorf("cannot encode the ResourceList")
	}
	return out, nil
}

func (rl *ResourceList) writeResults(b *bytes.Buffer) error {
	res, err := rl.resultNodes()
	if err != nil || len(res) == 0 {
		return err
	}
	b.WriteString("results:\n")
	for _, n := range res {
		if err := rl.writeItem(b, n, 1, 0); err != nil {
			return err
		}
	}
	return nil
}

func (rl *ResourceList) resultNodes() ([]*yaml.Node, error) {
	out := append([]*yaml.Node(nil), rl.oldResult...)
	for _, r := range rl.Results() {
		out = append(out, resultNode(r))
	}
	return out, nil
}

// resultNode builds a result's YAML by hand: encoding the struct with
// yaml.v3 costs more than the rest of a function for thousands of results.
func resultNode(r result.Result) *yaml.Node {
	m := mapping("message", r.Message, "severity", string(r.Severity))
	if ref := r.ResourceRef; ref != nil {
		m.Content = append(m.Content, str("resourceRef"),
			mapping("apiVersion", ref.APIVersion, "kind", ref.Kind, "name", ref.Name, "namespace", ref.Namespace))
	}
	if r.Field != nil && r.Field.Path != "" {
		m.Content = append(m.Content, str("field"), mapping("path", r.Field.Path))
	}
	if f := r.File; f != nil && f.Path != "" {
		file := mapping("path", f.Path)
		if f.Index != 0 {
			file.Content = append(file.Content, str("index"),
				&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.Itoa(f.Index)})
		}
		m.Content = append(m.Content, str("file"), file)
	}
	return m
}

// mapping returns a mapping of the non-empty string values among key, value
// pairs (the message is always kept).
func mapping(kv ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" || kv[i] == "message" {
			m.Content = append(m.Content, str(kv[i]), str(kv[i+1]))
		}
	}
	return m
}

// encodeNode encodes a node the way kpt writes YAML (2-space indent, compact
// sequences), or returns nil if it cannot be encoded: with emit where it
// can, else with yaml.v3.
func encodeNode(n *yaml.Node) []byte {
	var b bytes.Buffer
	if emit(&b, n) {
		return b.Bytes()
	}
	return encodeV3(n)
}

// encodeV3 encodes a node with yaml.v3's encoder.
func encodeV3(n *yaml.Node) (out []byte) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(n); err != nil {
		return nil
	}
	if err := enc.Close(); err != nil {
		return nil
	}
	return b.Bytes()
}

// quoteAmbiguous quotes every plain string (key or value) that a YAML 1.1 reader (such
// as kubectl's) would take for a boolean, number or null: `yes`, `on`, `0x1F`.
func quoteAmbiguous(n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode, yaml.MappingNode:
		for _, c := range n.Content {
			quoteAmbiguous(c)
		}
	case yaml.ScalarNode:
		if n.Style == 0 && n.Tag == yaml.NodeTagString && ambiguous(n.Value) {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
}

// ambiguous reports whether a YAML 1.1 reader would not read s as a string.
// The cheap test up front spares the full check for almost every value.
func ambiguous(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '+', c == '-', c == '.':
		if !numberLike(s) {
			return false
		}
	case c == '~':
	default:
		if len(s) > 5 {
			return false
		}
		switch strings.ToLower(s) {
		case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
		default:
			return false
		}
	}
	return yaml.IsValueNonString(s)
}

// blockStyle turns flow style (JSON) into block style: no braces, and quotes
// only where a string needs them.
func blockStyle(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
		n.Style &^= yaml.FlowStyle
		for _, c := range n.Content {
			blockStyle(c)
		}
	case yaml.ScalarNode:
		if n.Tag == yaml.NodeTagString && !strings.Contains(n.Value, "\n") {
			n.Style &^= yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle
		}
	}
}
