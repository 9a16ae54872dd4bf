package gitrepo

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// zlibWriters keeps compressors between packs (a new one allocates and
// clears its tables, more than a small pack's compression costs).
var zlibWriters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return zw
}}

// packEntry is an object of a pack being written: its name, where it
// starts, and the CRC-32 of its bytes there.
type packEntry struct {
	hash   plumbing.Hash
	offset uint64
	crc    uint32
}

// writePack writes objects into the folder dir (objects/pack) as one pack
// and its index, version 2, as git writes a pack it receives: whole
// objects (no deltas), zlib at git's loose-object level (1), each file
// written beside its name, made durable (core.fsync's default covers packs
// and their indexes; both at once, syncFiles) and
// renamed into place, the pack before its index (the index is what makes
// a pack seen).
func writePack(dir string, objs []plumbing.EncodedObject) error {
	var pack bytes.Buffer
	pack.WriteString("PACK")
	_ = binary.Write(&pack, binary.BigEndian, [2]uint32{2, uint32(len(objs))})
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	entries := make([]packEntry, 0, len(objs))
	for _, o := range objs {
		start := pack.Len()
		if err := writeEntry(&pack, zw, o); err != nil {
			return err
		}
		entries = append(entries, packEntry{hash: o.Hash(), offset: uint64(start), crc: crc32.ChecksumIEEE(pack.Bytes()[start:])})
	}
	sum := sha1.Sum(pack.Bytes())
	pack.Write(sum[:])
	base := filepath.Join(dir, "pack-"+hex.EncodeToString(sum[:]))
	names := []string{base + ".pack", base + ".idx"}
	if exists(names[0]) && exists(names[1]) {
		return nil // the same pack, there already
	}
	var temps []*os.File
	defer func() {
		for _, f := range temps {
			if f != nil {
				_ = f.Close()
				_ = os.Remove(f.Name()) // not renamed into place
			}
		}
	}()
	for _, b := range [][]byte{pack.Bytes(), packIndex(entries, sum)} {
		f, err := writeTemp(dir, b)
		if err != nil {
			return err
		}
		temps = append(temps, f)
	}
	if err := syncFiles(temps); err != nil {
		return err
	}
	for i, f := range temps {
		err := f.Close()
		if err == nil {
			err = os.Rename(f.Name(), names[i])
		}
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", filepath.Base(names[i]), err)
		}
		temps[i] = nil
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeEntry writes an object's header (type and size) and its content,
// compressed (or as compressed for an earlier pack: compressed).
func writeEntry(pack *bytes.Buffer, zw *zlib.Writer, o plumbing.EncodedObject) error {
	size := uint64(o.Size())
	b := byte(o.Type())<<4 | byte(size&0x0f)
	for size >>= 4; size > 0; size >>= 7 {
		pack.WriteByte(b | 0x80)
		b = byte(size & 0x7f)
	}
	pack.WriteByte(b)
	if z, ok := compressed.get(o.Hash()); ok {
		pack.Write(z)
		return nil
	}
	r, err := o.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	start := pack.Len()
	zw.Reset(pack)
	if _, err := io.Copy(zw, r); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	compressed.put(o.Hash(), pack.Bytes()[start:])
	return nil
}

// compressed keeps the compressed content of the objects written last,
// for the packs of other repositories: a run writes the same package
// files, and so the same blobs and trees, into many repositories, and
// compressing them again was most of a small pack's writing (zlib's output
// for the same content at the same level is the same bytes).
var compressed = &zcache{m: map[plumbing.Hash][]byte{}}

// zcacheMax bounds the bytes compressed keeps (past it, it starts over);
// it keeps no object larger than a 64th of it.
const zcacheMax = 8 << 20

// zcache is compressed object content by object name.
type zcache struct {
	mu   sync.Mutex
	m    map[plumbing.Hash][]byte
	size int
}

func (c *zcache) get(h plumbing.Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	z, ok := c.m[h]
	return z, ok
}

func (c *zcache) put(h plumbing.Hash, z []byte) {
	if len(z) > zcacheMax/64 {
		return // a large file: as likely one of a kind
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.size+len(z) > zcacheMax {
		c.m, c.size = map[plumbing.Hash][]byte{}, 0
	}
	c.m[h] = bytes.Clone(z)
	c.size += len(z)
}

// packIndex is a pack's index, version 2: the fan-out table, the names
// sorted, their CRC-32s and offsets (past 2 GiB in a table of their own),
// the pack's checksum and its own.
func packIndex(entries []packEntry, packSum [sha1.Size]byte) []byte {
	slices.SortFunc(entries, func(a, b packEntry) int { return bytes.Compare(a.hash[:], b.hash[:]) })
	var idx bytes.Buffer
	idx.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fanout [256]uint32
	for _, e := range entries {
		for i := int(e.hash[0]); i < 256; i++ {
			fanout[i]++
		}
	}
	_ = binary.Write(&idx, binary.BigEndian, fanout)
	for _, e := range entries {
		idx.Write(e.hash[:])
	}
	for _, e := range entries {
		_ = binary.Write(&idx, binary.BigEndian, e.crc)
	}
	var large []uint64
	for _, e := range entries {
		off := uint32(e.offset)
		if e.offset >= 1<<31 {
			off = 1<<31 | uint32(len(large))
			large = append(large, e.offset)
		}
		_ = binary.Write(&idx, binary.BigEndian, off)
	}
	_ = binary.Write(&idx, binary.BigEndian, large)
	idx.Write(packSum[:])
	sum := sha1.Sum(idx.Bytes())
	idx.Write(sum[:])
	return idx.Bytes()
}

// writeTemp writes a file of the object store beside its name, as git
// does: a temporary file in dir, created read-only (git's mode for them,
// no chmod after); it returns it open, not synced (syncFiles).
func writeTemp(dir string, b []byte) (*os.File, error) {
	f, err := createTemp(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot write a pack: %w", err)
	}
	if _, err = f.Write(b); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, fmt.Errorf("cannot write a pack: %w", err)
	}
	return f, nil
}

// createTemp creates a new file tmp_pack_<random> in dir, mode 0444.
func createTemp(dir string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "tmp_pack_"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no free temporary name in %s", dir)
}
