package stack

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kptkit/kptkit/pkg/api/kptfile"
	"github.com/kptkit/kptkit/pkg/fieldpath"
)

// Checksum returns the checksum of a resource's content: `sha256:` and 64 hex
// digits. It is a normalised comparison: key order, formatting, quoting and
// comments do not count, nor do the bookkeeping annotations kpt and
// kustomize add (kptfile.BookkeepingAnnotations and every
// internal.config.kubernetes.io/ annotation), nor the associations
// (spec.associations, spec.association), which the stack records apart.
// Values count by what they mean: `replicas: 3` and `replicas: "3"` differ,
// `0x10` and `16` do not.
func Checksum(n *yaml.Node) string {
	var c canon
	return c.sum(n)
}

// sum returns a resource's checksum, reusing the canon's buffers.
func (c *canon) sum(n *yaml.Node) string {
	if c.h == nil {
		c.h = sha256.New()
	}
	c.h.Reset()
	c.b, c.nodes = c.b[:0], 0
	c.node(n, atRoot)
	c.flush()
	var sum [sha256.Size]byte
	c.h.Sum(sum[:0])
	const prefix = "sha256:"
	var s [len(prefix) + 2*sha256.Size]byte
	copy(s[:], prefix)
	hex.Encode(s[len(prefix):], sum[:])
	return string(s[:])
}

// where a mapping sits, for the fields that do not count.
type place int

const (
	atRoot place = iota
	atMetadata
	atAnnotations
	atSpec
	elsewhere
)

// maxCanonNodes bounds the walk, so that aliases that expand exponentially
// cannot exhaust the machine; the rest of such a resource does not count.
const maxCanonNodes = 1 << 20

// canon writes a resource's canonical form into a hash, a stretch of at
// most canonStretch bytes at a time: a resource holding a 1 GiB string is
// hashed without a second copy of it.
type canon struct {
	h     hash.Hash
	b     []byte
	nodes int
	// keys holds the fields that count of the mappings being written, from
	// the outermost: each mapping's are above those of its parent.
	keys []int
}

// canonStretch is how much of a canonical form canon holds before it
// hashes it.
const canonStretch = 64 << 10

func (c *canon) tag(b byte)   { c.b = append(c.b, b) }
func (c *canon) length(n int) { c.b = binary.AppendUvarint(c.b, uint64(n)) }

// text writes a string's length and bytes, hashing what it holds when it
// holds a stretch.
func (c *canon) text(s string) {
	c.length(len(s))
	for len(s) > 0 {
		if len(c.b) >= canonStretch {
			c.flush()
		}
		k := min(len(s), canonStretch-len(c.b))
		c.b, s = append(c.b, s[:k]...), s[k:]
	}
}

// flush hashes what canon holds.
func (c *canon) flush() {
	c.h.Write(c.b)
	c.b = c.b[:0]
}

func (c *canon) node(n *yaml.Node, at place) {
	n = fieldpath.Deref(n)
	if c.nodes++; n == nil || c.nodes > maxCanonNodes {
		c.tag('?')
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		c.mapping(n, at)
	case yaml.SequenceNode:
		c.tag('l')
		c.length(len(n.Content))
		for _, e := range n.Content {
			c.node(e, elsewhere)
		}
	case yaml.ScalarNode:
		c.scalar(n)
	default:
		c.tag('?')
	}
}

// mapping writes the fields that count, sorted by key.
func (c *canon) mapping(n *yaml.Node, at place) {
	start := len(c.keys)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if counts(n.Content[i].Value, n.Content[i+1], at) {
			c.keys = append(c.keys, i)
		}
	}
	end := len(c.keys)
	slices.SortStableFunc(c.keys[start:end], func(a, b int) int { return strings.Compare(n.Content[a].Value, n.Content[b].Value) })
	c.tag('m')
	c.length(end - start)
	for k := start; k < end; k++ {
		i := c.keys[k] // c.keys may move as the values are written
		c.text(n.Content[i].Value)
		c.node(n.Content[i+1], child(n.Content[i].Value, at))
	}
	c.keys = c.keys[:start]
}

// counts reports whether a field is part of the content.
func counts(key string, v *yaml.Node, at place) bool {
	switch at {
	case atMetadata:
		return key != "annotations" || hasContent(v)
	case atAnnotations:
		return !kptfile.IsBookkeeping(key)
	case atSpec:
		return key != "associations" && key != "association"
	}
	return true
}

// hasContent reports whether an annotations mapping holds any annotation
// that counts (kpt drops annotations it emptied).
func hasContent(v *yaml.Node) bool {
	if v == nil || v.Kind != yaml.MappingNode {
		return v != nil && !(v.Kind == yaml.ScalarNode && v.Tag == yaml.NodeTagNull)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		if counts(v.Content[i].Value, v.Content[i+1], atAnnotations) {
			return true
		}
	}
	return false
}

func child(key string, at place) place {
	switch {
	case at == atRoot && key == "metadata":
		return atMetadata
	case at == atRoot && key == "spec":
		return atSpec
	case at == atMetadata && key == "annotations":
		return atAnnotations
	}
	return elsewhere
}

// scalar writes a scalar by what it means.
func (c *canon) scalar(n *yaml.Node) {
	switch tag := n.ShortTag(); tag {
	case yaml.NodeTagNull:
		c.tag('n')
	case yaml.NodeTagBool:
		c.tag('b')
		c.text(strings.ToLower(n.Value))
	case yaml.NodeTagInt:
		c.tag('i')
		c.text(canonInt(n.Value))
	case yaml.NodeTagFloat:
		c.tag('f')
		c.text(canonFloat(n.Value))
	case yaml.NodeTagString:
		c.tag('s')
		c.text(n.Value)
	default:
		c.tag('t')
		c.text(tag)
		c.text(n.Value)
	}
}

func canonInt(s string) string {
	if decimal(s) {
		return s // as strconv would write it: spares formatting it again
	}
	clean := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(clean, 0, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	if strings.HasPrefix(clean, "0o") || strings.HasPrefix(clean, "0x") || strings.HasPrefix(clean, "+") {
		return s
	}
	return strings.TrimLeft(clean, "0")
}

// decimal reports whether s is an integer as strconv.FormatInt writes it:
// digits without leading zeros, maybe after a minus (not "-0").
func decimal(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits[0] == '0' && s != "0" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

func canonFloat(s string) string {
	switch strings.ToLower(strings.TrimPrefix(s, "+")) {
	case ".inf":
		return "+Inf"
	case "-.inf":
		return "-Inf"
	case ".nan":
		return "NaN"
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || math.IsInf(f, 0) {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
