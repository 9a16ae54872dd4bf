package fnrunner

import (
	"fmt"
	"unicode/utf8"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
)

// codec is gRPC's proto codec without its buffer pool: that pool jumps
// from 32 KiB to 1 MiB buffers and clears a buffer's whole capacity each
// time it hands one out, so that every ResourceList of 40 KB cost clearing
// 1 MiB going in and again going out. A call's ResourceList is copied
// once each way, not twice: a request's from its frames into one of the
// server's buffers (bufs; a buffer of its own size without them), where
// decodeRequest leaves it, and an answer's goes to the transport as the
// function wrote it (encodeResponse), in one of the server's buffers
// when it was written there. Any other message is read or written in a
// buffer of its own size.
type codec struct{ bufs *buffers }

var _ encoding.CodecV2 = codec{}

// Marshal encodes a message: an answer as its parts, any other message in
// a buffer of its size.
func (c codec) Marshal(v any) (mem.BufferSlice, error) {
	switch resp := v.(type) {
	case *response:
		return encodeResponse(&resp.EvaluateFunctionResponse, resp.out), nil
	case *evaluator.EvaluateFunctionResponse:
		return encodeResponse(resp, lent{}), nil
	}
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

// Unmarshal decodes a message from its frames, gathered in one buffer (the
// frames go back to gRPC's pool once it returns): a request the server
// reads (*request) in one of its buffers, lent to the call.
func (c codec) Unmarshal(data mem.BufferSlice, v any) error {
	if req, ok := v.(*request); ok && c.bufs != nil {
		return c.readRequest(data, req)
	}
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("cannot unmarshal into %T: it is not a proto.Message", v)
	}
	b := data.Materialize()
	if req, ok := v.(*evaluator.EvaluateFunctionRequest); ok && decodeRequest(b, req) {
		return nil
	}
	return proto.Unmarshal(b, m)
}

// readRequest decodes a request into one of bufs: lent to the call when its
// ResourceList is left there, else given back at once (proto.Unmarshal
// copies what it keeps).
func (c codec) readRequest(data mem.BufferSlice, req *request) error {
	p := c.bufs.Get(data.Len())
	data.CopyTo(*p)
	if decodeRequest(*p, &req.EvaluateFunctionRequest) {
		if len(req.ResourceList) > 0 {
			req.in = lent{bufs: c.bufs, buf: p}
			return nil
		}
		c.bufs.Put(p)
		return nil
	}
	err := proto.Unmarshal(*p, &req.EvaluateFunctionRequest)
	c.bufs.Put(p)
	return err
}

// Name is the codec's content subtype: gRPC's own "proto".
func (codec) Name() string { return "proto" }

// Field numbers of the messages (evaluator.proto).
const (
	fieldResourceList = 1 // of both
	fieldImage        = 2 // of the request
	fieldLog          = 2 // of the answer
)

// decodeRequest reads a request encoded in b, whose ResourceList then
// holds its part of b, as proto.Unmarshal reads it (the last of a field
// written twice counts); it reports false, leaving req as it was, for
// anything else a request may hold (unknown fields, groups, an image that
// is not UTF-8...): proto.Unmarshal reads those.
func decodeRequest(b []byte, req *evaluator.EvaluateFunctionRequest) bool {
	var rl, image []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType || (num != fieldResourceList && num != fieldImage) {
			return false
		}
		v, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			return false
		}
		if num == fieldResourceList {
			rl = v
		} else {
			image = v
		}
		b = b[n+m:]
	}
	if !utf8.Valid(image) {
		return false
	}
	proto.Reset(req)
	if len(rl) > 0 { // proto3: an empty one is not set
		req.ResourceList = rl[:len(rl):len(rl)]
	}
	req.Image = string(image)
	return true
}

// encodeResponse encodes an answer as proto.Marshal does (its fields in
// order, an empty one left out), its ResourceList as a part of its own,
// not copied: the buffer out when it is there, given back to its pool once
// gRPC has sent it.
func encodeResponse(resp *evaluator.EvaluateFunctionResponse, out lent) mem.BufferSlice {
	var msg mem.BufferSlice
	var head []byte
	if rl := resp.GetResourceList(); len(rl) > 0 {
		head = protowire.AppendTag(head, fieldResourceList, protowire.BytesType)
		head = protowire.AppendVarint(head, uint64(len(rl)))
		msg = append(msg, mem.SliceBuffer(head), out.buffer(rl))
	} else {
		out.giveBack()
	}
	if log := resp.GetLog(); len(log) > 0 {
		tail := protowire.AppendTag(nil, fieldLog, protowire.BytesType)
		tail = protowire.AppendBytes(tail, log)
		msg = append(msg, mem.SliceBuffer(tail))
	}
	return msg
}
