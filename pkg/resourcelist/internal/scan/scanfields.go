package scan

// field is what part of an item's header a node is.
type field uint8

const (
	fOther field = iota
	fRoot        // the item's mapping
	fMetadata
	fLabels
	fAnnotations
	fLabel      // a value in labels
	fAnnotation // a value in annotations
	fAPIVersion // the scalar fields, in the order of Scanner.vals
	fKind
	fName
	fNamespace
)

// child is the field of the value of key in a mapping that is field f.
func child(f field, key []byte) field {
	switch f {
	case fRoot:
		switch string(key) {
		case "apiVersion":
			return fAPIVersion
		case "kind":
			return fKind
		case "metadata":
			return fMetadata
		}
	case fMetadata:
		switch string(key) {
		case "name":
			return fName
		case "namespace":
			return fNamespace
		case "labels":
			return fLabels
		case "annotations":
			return fAnnotations
		}
	case fLabels:
		return fLabel
	case fAnnotations:
		return fAnnotation
	}
	return fOther
}

// key records a key of the innermost mapping, which is field f, and
// returns its value's field. A key the mapping had already makes the scan
// unsure.
func (s *Scanner) key(f field, line []byte, t tok) (field, bool) {
	s.nodes++
	if len(line[t.start:t.end]) > 1000 {
		return 0, false // yaml.v3 takes no longer implicit keys
	}
	if kc := s.keys; kc != nil {
		if t.escaped() && !kc.uniqueEscaped(line, t) || !t.escaped() && !kc.unique(line[t.start:t.end], uint32(s.at+t.start)) {
			return 0, false
		}
	}
	switch f {
	case fRoot, fMetadata:
		if !t.escaped() { // its value is its text
			return child(f, line[t.start:t.end]), s.b == nil || s.b.scalar(t)
		}
		mark := len(s.text)
		sp, ok := s.decode(line, t)
		if !ok {
			return 0, false
		}
		c := child(f, s.text[sp.start:sp.end])
		s.text = s.text[:mark]
		return c, s.b == nil || s.b.scalar(t)
	case fLabels, fAnnotations:
		sp, ok := s.decode(line, t)
		if !ok {
			return 0, false
		}
		list := &s.labels
		if f == fAnnotations {
			list = &s.annots
		}
		if st, ok := staticKey(s.text[sp.start:sp.end]); ok {
			s.text, sp = s.text[:sp.start], st
		}
		add(list, kv{k: sp})
		return child(f, nil), s.b == nil || s.b.scalar(t)
	}
	return fOther, s.b == nil || s.b.scalar(t)
}

// scalar records a scalar value of field f.
func (s *Scanner) scalar(f field, line []byte, t tok) bool {
	s.nodes++
	if s.b != nil && (f == fRoot || !s.b.scalar(t)) {
		return false
	}
	switch f {
	case fRoot:
		return false
	case fAPIVersion, fKind, fName, fNamespace:
		sp, ok := s.decode(line, t)
		if t.quote() == 0 && isNull(line[t.start:t.end]) {
			sp = span{}
		}
		s.vals[f-fAPIVersion] = sp
		return ok
	case fLabel, fAnnotation:
		sp, ok := s.decode(line, t)
		s.setEntry(f, sp)
		return ok
	case fLabels, fAnnotations:
		s.setHas(f, false)
	}
	return true
}

// null records a null value of field f.
func (s *Scanner) null(f field) bool {
	s.nodes++
	switch f {
	case fRoot:
		return false
	case fAPIVersion, fKind, fName, fNamespace:
		s.vals[f-fAPIVersion] = span{}
	case fLabel, fAnnotation:
		s.setEntry(f, span{})
	case fLabels, fAnnotations:
		s.setHas(f, false)
	}
	return true
}

// collection records that field f is a mapping (isMap) or a sequence.
func (s *Scanner) collection(f field, isMap bool) bool {
	s.nodes++
	switch f {
	case fRoot:
		s.rootSet = true
		return isMap
	case fAPIVersion, fKind, fName, fNamespace:
		s.vals[f-fAPIVersion] = span{}
	case fLabels, fAnnotations:
		s.setHas(f, isMap)
	}
	return true
}

func (s *Scanner) setEntry(f field, v span) {
	list := s.labels
	if f == fAnnotation {
		list = s.annots
	}
	list[len(list)-1].v, list[len(list)-1].scalar = v, true
}

func (s *Scanner) setHas(f field, has bool) {
	if f == fLabels {
		s.hasLbl = has
	} else {
		s.hasAnn = has
	}
}

// isNull reports whether a plain scalar is null.
func isNull(v []byte) bool {
	switch string(v) {
	case "~", "null", "Null", "NULL":
		return true
	}
	return false
}
