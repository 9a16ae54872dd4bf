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
// frames' memory (gRPC reuses it).
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
	frames := mem.BufferSlice{}
	for rest := bytes.Clone(wire); len(rest) > 0; {
		n := min(len(rest), 7)
		frames = append(frames, mem.SliceBuffer(rest[:n]))
		rest = rest[n:]
	}
	var got evaluator.EvaluateFunctionRequest
	err := codec{}.Unmarshal(frames, &got)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("Unmarshal(%q): error %v, proto.Unmarshal's %v", wire, err, wantErr)
	}
	if err == nil && !proto.Equal(&got, &want) {
		t.Fatalf("Unmarshal(%q) = %v, proto.Unmarshal's %v", wire, &got, &want)
	}
	for _, f := range frames {
		clear(f.ReadOnlyData()) // gRPC reuses the frames
	}
	if err == nil && !proto.Equal(&got, &want) {
		t.Fatalf("Unmarshal(%q) = %v once the frames were reused, want %v", wire, &got, &want)
	}
}

// TestCodecResponse: the server writes an answer as proto.Marshal does.
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
