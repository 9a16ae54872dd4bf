package scan

// blockHeader reads a block scalar's indicator line ("|", ">-"...); its
// content follows on the next lines. Its value is not read: a header field
// written so is unsure.
func (s *Scanner) blockHeader(line []byte, j, parent int, f field) bool {
	if f != fOther {
		return false
	}
	k := j + 1
	var chomp byte
	if k < len(line) && (line[k] == '-' || line[k] == '+') {
		chomp = line[k]
		k++
	}
	n := spaces(line[k:])
	if k+n < len(line) && (n == 0 || line[k+n] != '#') {
		return false
	}
	s.block = blockScalar{active: true, parent: parent}
	s.nodes++
	if s.b != nil {
		if line[j] != '|' || k+n < len(line) {
			return false // the builder reads no folded scalars, nor comments here
		}
		s.b.startBlock(j, chomp)
	}
	return true
}

type blockState int

const (
	inBlock blockState = iota
	afterBlock
	badBlock
)

// blockLine reads a line after a block scalar's indicator, which starts
// with sp spaces: its content, or the line that ends it. It follows
// libyaml: the content's column is that of its first non-empty line, at
// least one more than the parent's; a tab where indentation is expected
// is an error.
func (s *Scanner) blockLine(line []byte, sp int) blockState {
	b := &s.block
	if b.indent == 0 {
		switch {
		case sp < len(line) && line[sp] == '\t':
			return badBlock
		case sp == len(line):
			b.maxBlank = max(b.maxBlank, sp)
			return inBlock
		}
		indent := max(b.maxBlank, sp, b.parent+1, 1)
		if sp >= indent {
			b.indent = indent
			return inBlock
		}
		if b.maxBlank > sp {
			return badBlock
		}
		b.active = false
		return afterBlock
	}
	switch {
	case sp >= b.indent || sp == len(line):
		return inBlock
	case line[sp] == '\t':
		return badBlock
	}
	b.active = false
	return afterBlock
}
