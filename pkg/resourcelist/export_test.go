package resourcelist

import "sigs.k8s.io/kustomize/kyaml/yaml"

// ParseFull reads a ResourceList whole with yaml.v3, as Parse does when
// it cannot read the list lazily: the equivalence tests hold Parse to it.
func ParseFull(in []byte) (*ResourceList, error) { return parseFull(in) }

// ParseSplitFirst reads a list lazily as Parse does a large one: split
// first, then its entries scanned (nil when it reads the list whole).
func ParseSplitFirst(in []byte) *ResourceList { return readLazy(in, false) }

// Lazy reports whether the list was read lazily.
func (rl *ResourceList) Lazy() bool { return rl.doc == nil && rl.src != nil }

// Scanned returns how many items of the input the scan read, of how many.
func (rl *ResourceList) Scanned() (n, of int) {
	for _, it := range rl.items {
		if it.pos >= 0 {
			of++
			if it.scan != nil {
				n++
			}
		}
	}
	return n, of
}

// ScanValue and ParseValue read a root key's value with the scan, and with
// yaml.v3.
func ScanValue(text []byte, line int) *yaml.Node { return scanValue(text, line) }

func ParseValue(text []byte, line int) *yaml.Node {
	v, _ := parseValue(text, line)
	return v
}
