package fnrunner

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
)

// wireRequests are requests as bytes on the wire: what proto.Marshal
// writes, and what other writers may (a field twice, unknown fields, an
// image that is not UTF-8, a cut field).
func wireRequests() map[string][]byte {
	marshal := func(req *evaluator.EvaluateFunctionRequest) []byte {
		b, _ := proto.Marshal(req)
		return b
	}
	field := func(b []byte, num protowire.Number, v string) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), []byte(v))
	}
	return map[string][]byte{
		"marshalled":       marshal(&evaluator.EvaluateFunctionRequest{Image: "ghcr.io/kptkit/set-package-context:v1", ResourceList: []byte("kind: ResourceList\n")}),
		"empty":            nil,
		"image only":       marshal(&evaluator.EvaluateFunctionRequest{Image: "fn"}),
		"image first":      field(field(nil, fieldImage, "fn"), fieldResourceList, "items: []\n"),
		"written twice":    field(field(field(nil, fieldResourceList, "a"), fieldImage, "fn"), fieldResourceList, "b"),
		"empty list":       field(field(nil, fieldResourceList, "a"), fieldResourceList, ""),
		"unknown field":    field(field(nil, fieldResourceList, "a"), 9, "x"),
		"varint field":     protowire.AppendVarint(protowire.AppendTag(field(nil, fieldResourceList, "a"), fieldImage, protowire.VarintType), 3),
		"image not UTF-8":  field(nil, fieldImage, "\xff"),
		"cut":              field(nil, fieldResourceList, "abc")[:3],
		"bad tag":          {0x80},
		"field number 0":   field(nil, 0, "a"),
		"group":            protowire.AppendTag(nil, fieldImage, protowire.StartGroupType),
		"list not UTF-8":   field(nil, fieldResourceList, "\xff\xfe"),
		"long varint size": append(protowire.AppendTag(nil, fieldResourceList, protowire.BytesType), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
	}
}

// TestCodecRequest: the server reads every request as proto.Unmarshal does,
// split in frames or not, and the ResourceList it hands on is not the
// frames' memory (gRPC reuses it); read into one of the server's buffers,
// which holds an earlier call's bytes, the same.
func TestCodecRequest(t *testing.T) {
	for name, wire := range wireRequests() {
		t.Run(name, func(t *testing.T) {
			checkDecode(t, wire)
		})
	}
}

func checkDecode(t *testing.T, wire []byte) {
	t.Helper()
	var want evaluator.EvaluateFunctionRequest
	wantErr := proto.Unmarshal(wire, &want)
	var plain evaluator.EvaluateFunctionRequest
	bufs := newBuffers(1)
	dirty := bytes.Repeat([]byte{0xff}, 2*len(wire)+16)
	bufs.Put(&dirty)
	var read request
	for _, tc := range []struct {
		name  string
		codec codec
		v     any
		got   *evaluator.EvaluateFunctionRequest
	}{
		{"codec", codec{}, &plain, &plain},
		{"codec with buffers", codec{bufs: bufs}, &read, &read.EvaluateFunctionRequest},
	} {
		frames := mem.BufferSlice{}
		for rest := bytes.Clone(wire); len(rest) > 0; {
			n := min(len(rest), 7)
			frames = append(frames, mem.SliceBuffer(rest[:n]))
			rest = rest[n:]
		}
		err := tc.codec.Unmarshal(frames, tc.v)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: Unmarshal(%q): error %v, proto.Unmarshal's %v", tc.name, wire, err, wantErr)
		}
		if err == nil && !proto.Equal(tc.got, &want) {
			t.Fatalf("%s: Unmarshal(%q) = %v, proto.Unmarshal's %v", tc.name, wire, tc.got, &want)
		}
		for _, f := range frames {
			clear(f.ReadOnlyData()) // gRPC reuses the frames
		}
		if err == nil && !proto.Equal(tc.got, &want) {
			t.Fatalf("%s: Unmarshal(%q) = %v once the frames were reused, want %v", tc.name, wire, tc.got, &want)
		}
	}
	// The buffer is lent to the call when the ResourceList is in it, else
	// kept by the server at once.
	lentOne := read.in.buf != nil
	if kept := len(bufs.free) == 1; kept == lentOne {
		t.Errorf("Unmarshal(%q) with buffers: lent %v and kept %v; want one of them", wire, lentOne, kept)
	}
	if lentOne && &(*read.in.buf)[0] != &dirty[0] {
		t.Errorf("Unmarshal(%q) with buffers read the request into a buffer of its own, not the one kept", wire)
	}
}

// TestCodecResponse: the server writes an answer as proto.Marshal does,
// and an answer written into one of its buffers gives the buffer back once
// gRPC is done with the message, not before.
func TestCodecResponse(t *testing.T) {
	for name, resp := range map[string]*evaluator.EvaluateFunctionResponse{
		"list and log": {ResourceList: []byte("kind: ResourceList\n"), Log: []byte("warning\n")},
		"list":         {ResourceList: bytes.Repeat([]byte("x"), 70000)},
		"log":          {Log: []byte("failed\n")},
		"empty":        {},
		"empty fields": {ResourceList: []byte{}, Log: []byte{}},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := proto.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			got, err := codec{}.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.Materialize(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Marshal(%v) differs from proto.Marshal's (-want +got):\n%s", resp, diff)
			}
			bufs := newBuffers(1)
			p := bufs.Get(max(len(resp.ResourceList), 2<<10)) // pooled by gRPC from 1 KiB
			*p = append((*p)[:0], resp.ResourceList...)
			lentResp := &response{out: lent{bufs: bufs, buf: p}}
			lentResp.ResourceList, lentResp.Log = *p, resp.Log
			got, err = codec{bufs: bufs}.Marshal(lentResp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.Materialize(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Marshal(%v) in a buffer differs from proto.Marshal's (-want +got):\n%s", resp, diff)
			}
			if kept, sent := len(bufs.free), len(resp.ResourceList) == 0; (kept == 1) != sent {
				t.Errorf("before the message is freed, %d buffers kept; want %d", kept, map[bool]int{true: 1}[sent])
			}
			got.Free()
			if len(bufs.free) != 1 {
				t.Errorf("once the message is freed, %d buffers kept, want 1", len(bufs.free))
			}
		})
	}
}

// TestCodecResponseNotInItsBuffer: an answer whose ResourceList is not the
// bytes its lent buffer holds (another slice, or a part) is sent as it is,
// and the buffer goes back at once: gRPC never sends the buffer's bytes for
// it.
func TestCodecResponseNotInItsBuffer(t *testing.T) {
	rl := []byte("kind: ResourceList\nitems: []\n")
	want, err := proto.Marshal(&evaluator.EvaluateFunctionResponse{ResourceList: rl})
	if err != nil {
		t.Fatal(err)
	}
	for name, answer := range map[string]func(held []byte) []byte{
		"another slice": func([]byte) []byte { return bytes.Clone(rl) },
		"a part":        func(held []byte) []byte { return held[:len(rl)] },
	} {
		t.Run(name, func(t *testing.T) {
			bufs := newBuffers(1)
			p := bufs.Get(2 << 10)
			*p = append(append((*p)[:0], rl...), "stale bytes of an earlier call"...)
			resp := &response{out: lent{bufs: bufs, buf: p}}
			resp.ResourceList = answer(*p)
			got, err := codec{bufs: bufs}.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.Materialize()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(bufs.free) != 1 {
				t.Errorf("%d buffers kept before the message is freed, want 1 (given back at once)", len(bufs.free))
			}
			got.Free()
		})
	}
}

// FuzzCodecRequest holds the server's reading of a request to
// proto.Unmarshal's, for any bytes.
func FuzzCodecRequest(f *testing.F) {
	for _, wire := range wireRequests() {
		f.Add(wire)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		checkDecode(t, wire)
	})
}
