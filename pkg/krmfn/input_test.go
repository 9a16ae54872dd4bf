package krmfn_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/pkg/krmfn"
)

// endless is an input that never ends, counting what is read of it.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestReadAtMost: an input larger than the limit is refused once one byte
// more than the limit is read, never read whole; one of the limit's size
// is read whole, and so is any input with no limit (0).
func TestReadAtMost(t *testing.T) {
	t.Parallel()
	for _, limit := range []krmfn.Size{1, 64<<10 - 1, 64 << 10, 3<<20 + 5} {
		var in endless
		_, err := krmfn.ReadAtMost(&in, limit, "--max-input")
		var tl *krmfn.TooLarge
		if !errors.As(err, &tl) || in.read != int64(limit)+1 {
			t.Errorf("limit %d: err %v after reading %d bytes, want a refusal after %d", limit, err, in.read, limit+1)
		}
		data := bytes.Repeat([]byte("y"), int(limit))
		got, err := krmfn.ReadAtMost(bytes.NewReader(data), limit, "--max-input")
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("limit %d: an input of the limit's size: %d bytes, %v", limit, len(got), err)
		}
	}
	data := strings.Repeat("z", 5<<20)
	if got, err := krmfn.ReadAtMost(strings.NewReader(data), 0, "--max-input"); err != nil || string(got) != data {
		t.Errorf("no limit: %d bytes, %v", len(got), err)
	}
}

// TestMainMaxInput: --max-input bounds what Main reads, and refuses a
// larger input naming the flag, before reading it all.
func TestMainMaxInput(t *testing.T) {
	t.Parallel()
	size := krmfn.Size(len(input))
	for _, c := range []struct {
		name   string
		args   []string
		in     io.Reader
		code   int
		stderr string
	}{
		{"the input's size", []string{"--max-input", size.String()}, strings.NewReader(input), 0, ""},
		{"one byte less", []string{"--max-input=" + (size - 1).String()}, strings.NewReader(input), 1,
			"identity: cannot read stdin: the input is larger than 120B, the most --max-input allows: refused before reading it all\n"},
		{"an endless input", []string{"--max-input", "1Mi"}, &endless{}, 1,
			"identity: cannot read stdin: the input is larger than 1MiB, the most --max-input allows: refused before reading it all\n"},
		{"no limit", []string{"--max-input", "0"}, strings.NewReader(input), 0, ""},
		{"a bad size", []string{"--max-input", "2XB"}, strings.NewReader(input), 2,
			"identity: invalid value \"2XB\" for flag --max-input: want a whole number of bytes with an optional unit: KiB, MiB, GiB (or Ki, Mi, Gi), KB, MB, GB\n"},
		{"no size", []string{"--max-input"}, strings.NewReader(input), 2, "identity: flag needs an argument: --max-input\n"},
	} {
		var out, errb bytes.Buffer
		code := krmfn.Main(krmfn.Identity, "", c.args, c.in, &out, &errb, env)
		if code != c.code || errb.String() != c.stderr {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.name, code, errb.String(), c.code, c.stderr)
		}
		if e, ok := c.in.(*endless); ok && e.read != 1<<20+1 {
			t.Errorf("%s: %d bytes read, want %d", c.name, e.read, 1<<20+1)
		}
		if code == 0 && out.String() != input {
			t.Errorf("%s: stdout %q", c.name, out.String())
		}
	}
}

// TestDefaultMaxInput: without --max-input, a function reads 256 MiB.
func TestDefaultMaxInput(t *testing.T) {
	t.Parallel()
	if got := krmfn.DefaultMaxInput.String(); got != "256MiB" {
		t.Errorf("DefaultMaxInput = %s", got)
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	type answer struct {
		Size   krmfn.Size
		String string
		Err    string
	}
	var got []answer
	for _, s := range []string{"256Mi", "256MiB", "1gi", "512M", "1048576", "1000b", " 2 Ki ", "0", "-1", "1.5Gi", "Mi", "9999999Ti"} {
		n, err := krmfn.ParseSize(s)
		a := answer{Size: n, String: n.String()}
		if err != nil {
			a = answer{Err: err.Error()}
		}
		got = append(got, a)
	}
	bad := "want a whole number of bytes with an optional unit: KiB, MiB, GiB (or Ki, Mi, Gi), KB, MB, GB"
	want := []answer{
		{256 << 20, "256MiB", ""}, {256 << 20, "256MiB", ""}, {1 << 30, "1GiB", ""}, {512e6, "500000KiB", ""},
		{1 << 20, "1MiB", ""}, {1000, "1000B", ""}, {2 << 10, "2KiB", ""}, {0, "0", ""},
		{Err: bad}, {Err: bad}, {Err: bad}, {Err: "too large"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzParseSize: any text is a size or an error, never a panic; a size
// written out reads back as itself.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"256Mi", "1GiB", "512M", "0", "-1", "9223372036854775807", "8Ei", " 3 kb "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := krmfn.ParseSize(s)
		if err != nil {
			return
		}
		if back, err := krmfn.ParseSize(n.String()); err != nil || back != n {
			t.Errorf("ParseSize(%q) = %d, written %q, read back %d (%v)", s, n, n.String(), back, err)
		}
	})
}
