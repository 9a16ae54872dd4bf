package kptpkg

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
)

// Framing is how a Digest writes each of its fields (a path, a file's
// bytes, a string) into its hash, so that fields cannot run into each
// other. kptkit stores three digests of a package's files, each framed its
// own way since it was first written, and each must go on being framed so:
// a stored digest is compared with one computed now (a fleet package whose
// seal changed would be taken for one edited by hand).
type Framing int

const (
	// LineFraming writes "<length>:<field>\n": the fleet's seal
	// (kptkit.dev/rendered) and inputs digest (kptkit.dev/inputs).
	LineFraming Framing = iota
	// LengthFraming writes "<length>:<field>": a folder upstream's key,
	// which goes into the inputs digest.
	LengthFraming
	// NULFraming writes "<field>\x00": a catalog index's package digest
	// (spec.versions[].source.digest).
	NULFraming
)

// Digest is a sha256 of fields, each written with one Framing.
type Digest struct {
	h       hash.Hash
	framing Framing
	buf     []byte
}

// NewDigest returns an empty digest whose fields are framed by f.
func NewDigest(f Framing) *Digest { return &Digest{h: sha256.New(), framing: f} }

// Field writes a string field.
func (d *Digest) Field(s string) {
	d.head(len(s))
	d.buf = append(d.buf, s...)
	d.tail()
}

// Bytes writes a field of bytes.
func (d *Digest) Bytes(b []byte) {
	d.head(len(b))
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
	d.h.Write(b)
	d.tail()
}

// Files writes each file's path and then its bytes, in the order of paths
// (paths of files).
func (d *Digest) Files(files Files, paths []string) {
	for _, p := range paths {
		d.Field(p)
		d.Bytes(files[p])
	}
}

// Hex returns the digest in hexadecimal.
func (d *Digest) Hex() string { return hex.EncodeToString(d.h.Sum(nil)) }

// head starts a field of n bytes in d.buf.
func (d *Digest) head(n int) {
	d.buf = d.buf[:0]
	if d.framing != NULFraming {
		d.buf = append(strconv.AppendInt(d.buf, int64(n), 10), ':')
	}
}

// tail ends a field: what d.buf holds, and the framing's end.
func (d *Digest) tail() {
	switch d.framing {
	case LineFraming:
		d.buf = append(d.buf, '\n')
	case NULFraming:
		d.buf = append(d.buf, 0)
	}
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}
