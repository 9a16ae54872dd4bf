package krmfn

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
)

// DefaultMaxInput is how large a ResourceList a function reads on stdin
// unless --max-input says otherwise (0: no limit). Porch gives a function
// at most 6 MiB; a function holds up to three times its input at its
// peak.
const DefaultMaxInput = Size(256 << 20)

// Size is a number of bytes, written with the largest binary unit that
// divides it (256MiB, 1000B).
type Size int64

// sizeUnits are the suffixes ParseSize takes (case aside): binary units as
// Kubernetes writes them (Mi) or with a B (MiB), decimal ones as
// Kubernetes (M) or with a B (MB).
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"ki", 1 << 10}, {"mi", 1 << 20}, {"gi", 1 << 30}, {"ti", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12},
	{"b", 1},
}

// errSize is what a size that does not parse is told.
var errSize = errors.New("want a whole number of bytes with an optional unit: KiB, MiB, GiB (or Ki, Mi, Gi), KB, MB, GB")

// ParseSize reads a size: a whole number with an optional unit (256MiB,
// 2Gi, 512M, 1048576).
func ParseSize(s string) (Size, error) {
	num, scale := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if len(num) > len(u.suffix) && strings.EqualFold(num[len(num)-len(u.suffix):], u.suffix) {
			num, scale = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	switch {
	case err != nil || n < 0:
		return 0, errSize
	case n > (1<<63-1)/scale:
		return 0, errors.New("too large")
	}
	return Size(n * scale), nil
}

func (s Size) String() string {
	if s == 0 {
		return "0"
	}
	for _, u := range []struct {
		name  string
		bytes Size
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s%u.bytes == 0 {
			return strconv.FormatInt(int64(s/u.bytes), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// Set implements flag.Value.
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

// TooLarge is an input refused for its size: more than Limit, which Flag
// sets.
type TooLarge struct {
	Limit Size
	Flag  string
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("the input is larger than %s, the most %s allows: refused before reading it all", e.Limit, e.Flag)
}

// ReadAtMost reads r to its end into a buffer of the exact size, but
// never more than limit+1 bytes: an input larger than limit is a
// *TooLarge (flag names the setting) once limit+1 bytes are read; 0 is no
// limit. It reads
// in chunks, copied once into one slice, so that the input is held once
// (and twice only for that copy), not in a buffer doubled as it grows.
func ReadAtMost(r io.Reader, limit Size, flag string) ([]byte, error) {
	const chunk = 1 << 20
	var (
		chunks [][]byte
		total  int64
		most   = int64(limit) + 1 // what is read at most
	)
	if limit <= 0 || limit == math.MaxInt64 {
		limit, most = math.MaxInt64, math.MaxInt64
	}
	r = io.LimitReader(r, most)
	for size := int64(64 << 10); ; size = min(2*size, chunk) {
		buf := make([]byte, min(size, most-total))
		n, err := io.ReadFull(r, buf)
		chunks, total = append(chunks, buf[:n]), total+int64(n)
		if total > int64(limit) {
			return nil, &TooLarge{Limit: limit, Flag: flag}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	// The chunks are garbage now: collect them at once, so that what the
	// function allocates next takes their place instead of adding to them.
	clear(chunks)
	runtime.GC()
	return out, nil
}

// mainArgs reads a function binary's arguments: --help, and --max-input
// SIZE (or --max-input=SIZE).
func mainArgs(args []string) (help bool, maxInput Size, err error) {
	maxInput = DefaultMaxInput
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "-h" || a == "--help" || a == "help":
			return true, maxInput, nil
		case name == "--max-input" || name == "-max-input":
			if !hasValue {
				if i++; i == len(args) {
					return false, 0, fmt.Errorf("flag needs an argument: %s", name)
				}
				value = args[i]
			}
			if maxInput, err = ParseSize(value); err != nil {
				return false, 0, fmt.Errorf("invalid value %q for flag %s: %w", value, name, err)
			}
		default:
			return false, 0, fmt.Errorf("unexpected argument %q: the function reads a ResourceList on stdin (see --help)", a)
		}
	}
	return false, maxInput, nil
}
