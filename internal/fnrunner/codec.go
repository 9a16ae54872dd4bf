package fnrunner

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// codec is gRPC's proto codec without its buffer pool: that pool jumps
// from 32 KiB to 1 MiB buffers and clears a buffer's whole capacity each
// time it hands one out, so that every ResourceList of 40 KB cost clearing
// 1 MiB going in and again going out. A message here is read from its
// frames, or written, in one buffer of its own size.
type codec struct{}

var _ encoding.CodecV2 = codec{}

// Marshal encodes a message in a buffer of its size.
func (codec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("cannot marshal %T: it is not a proto.Message", v)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

// Unmarshal decodes a message from its frames (its bytes fields are
// copied out of them).
func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("cannot unmarshal into %T: it is not a proto.Message", v)
	}
	if len(data) == 1 {
		return proto.Unmarshal(data[0].ReadOnlyData(), m)
	}
	return proto.Unmarshal(data.Materialize(), m)
}

// Name is the codec's content subtype: gRPC's own "proto".
func (codec) Name() string { return "proto" }
