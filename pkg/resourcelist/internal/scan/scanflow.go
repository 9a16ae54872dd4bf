package scan

// flowValue reads a flow collection that starts at line[j] and ends on the
// same line, before a comment or the line's end.
func (s *Scanner) flowValue(line []byte, j int, f field) bool {
	end, ok := s.flow(line, j, f, len(s.stack))
	if !ok {
		return false
	}
	k := end + spaces(line[end:])
	if s.b != nil {
		s.b.comment(s.b.last, k)
	}
	return k == len(line) || (line[k] == '#' && k > end)
}

// flow reads a flow mapping or sequence at line[j] and returns where it
// ends. Empty entries, trailing commas, single-pair mappings in sequences
// and keys without values are unsure.
func (s *Scanner) flow(line []byte, j int, f field, depth int) (int, bool) {
	if depth >= maxDepth {
		return 0, false
	}
	isMap := line[j] == '{'
	if !s.collection(f, isMap) {
		return 0, false
	}
	if s.b != nil {
		n, start := s.b.open(!isMap, true, j)
		defer func() { s.b.close(n, start) }()
	}
	closer := byte(']')
	if isMap {
		closer = '}'
	}
	k := j + 1 + spaces(line[j+1:])
	if k < len(line) && line[k] == closer {
		return k + 1, true
	}
	if !isMap {
		return s.flowEntries(line, k, closer, f, false, depth)
	}
	s.keys.begin()
	end, ok := s.flowEntries(line, k, closer, f, true, depth)
	s.keys.end()
	return end, ok
}

// flowEntries reads the entries of a flow collection from line[k] to its
// closer and returns where it ends: the pairs of a mapping that is field
// f, or the nodes of a sequence.
func (s *Scanner) flowEntries(line []byte, k int, closer byte, f field, isMap bool, depth int) (int, bool) {
	for {
		var ok bool
		if isMap {
			k, ok = s.flowPair(line, k, f, depth)
		} else {
			k, ok = s.flowNode(line, k, fOther, depth)
		}
		if !ok {
			return 0, false
		}
		k += spaces(line[k:])
		switch {
		case k == len(line):
			return 0, false
		case line[k] == closer:
			return k + 1, true
		case line[k] != ',':
			return 0, false
		}
		k++
		k += spaces(line[k:])
		if k == len(line) || line[k] == closer || line[k] == ',' {
			return 0, false
		}
	}
}

// flowPair reads a key and its value in a flow mapping that is field f.
func (s *Scanner) flowPair(line []byte, k int, f field, depth int) (int, bool) {
	if k == len(line) {
		return 0, false
	}
	t, ok := readScalar(line, k, true)
	if !ok || !t.key() {
		return 0, false
	}
	c, ok := s.key(f, line, t)
	if !ok {
		return 0, false
	}
	k = t.next + spaces(line[t.next:])
	if k < len(line) && (line[k] == ',' || line[k] == '}') {
		return k, s.b == nil && s.null(c) // the builder places no null in a flow mapping
	}
	return s.flowNode(line, k, c, depth)
}

// flowNode reads a node inside a flow collection: a collection or a scalar.
func (s *Scanner) flowNode(line []byte, k int, f field, depth int) (int, bool) {
	if k == len(line) {
		return 0, false
	}
	if line[k] == '[' || line[k] == '{' {
		return s.flow(line, k, f, depth+1)
	}
	t, ok := readScalar(line, k, true)
	if !ok || t.key() || !s.scalar(f, line, t) {
		return 0, false
	}
	return t.next, true
}
