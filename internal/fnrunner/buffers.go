package fnrunner

import (
	"sync"

	"google.golang.org/grpc/mem"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
)

// maxKept is the largest buffer the server keeps from call to call: a
// ResourceList of a typical package fits many times over; a larger one is
// left to the collector.
const maxKept = 1 << 20

// buffers keep a few byte buffers from call to call, for the requests'
// ResourceLists and for the answers kptkit's functions write: a buffer a
// call makes anew is a large object (a package of 50 Deployments is 40 KB),
// cleared when made and collected after, twice a call. A buffer is taken
// with Get and given back with Put once nothing reads it any more: a
// request's when its function has ended (a function in process, which is
// never stopped, may end after its caller has gone), an answer's once gRPC
// has sent it.
type buffers struct {
	mu   sync.Mutex
	free []*[]byte
	keep int // at most so many are kept
}

var _ mem.BufferPool = (*buffers)(nil)

// newBuffers keeps at most keep buffers.
func newBuffers(keep int) *buffers {
	return &buffers{keep: keep}
}

// Get returns a buffer of length n (its bytes are what an earlier call left
// there): a kept one large enough, or a new one with room to grow by an
// eighth.
func (b *buffers) Get(n int) *[]byte {
	b.mu.Lock()
	for i, p := range b.free {
		if cap(*p) >= n {
			last := len(b.free) - 1
			b.free[i], b.free[last] = b.free[last], nil
			b.free = b.free[:last]
			b.mu.Unlock()
			*p = (*p)[:n]
			return p
		}
	}
	b.mu.Unlock()
	buf := make([]byte, n, n+n/8)
	return &buf
}

// Put gives a buffer back: kept unless it is over maxKept or enough are
// kept already, larger ones first.
func (b *buffers) Put(p *[]byte) {
	if p == nil || cap(*p) == 0 || cap(*p) > maxKept {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.free) < b.keep {
		b.free = append(b.free, p)
		return
	}
	for i, q := range b.free {
		if cap(*q) < cap(*p) {
			b.free[i] = p
			return
		}
	}
}

// lent is a buffer of bufs lent to a call; the zero lent is none.
type lent struct {
	bufs *buffers
	buf  *[]byte
}

// giveBack gives the buffer back: nothing reads it any more.
func (l lent) giveBack() {
	if l.buf != nil {
		l.bufs.Put(l.buf)
	}
}

// buffer is b as a part of a message gRPC sends: the lent buffer, given
// back to its pool once sent, when it holds exactly b; else b itself (and
// the buffer goes back now).
func (l lent) buffer(b []byte) mem.Buffer {
	if l.buf == nil || len(*l.buf) != len(b) || len(b) == 0 || &(*l.buf)[0] != &b[0] {
		l.giveBack()
		return mem.SliceBuffer(b)
	}
	return mem.NewBuffer(l.buf, l.bufs)
}

// request is a call's request as gRPC hands it to the server: its
// ResourceList in a buffer lent to the call (in), unless the codec could
// not leave it there.
type request struct {
	evaluator.EvaluateFunctionRequest
	in lent
}

// handOver takes the request's buffer from the call, for the function that
// reads the ResourceList: done gives it back no more.
func (r *request) handOver() lent {
	if r == nil {
		return lent{}
	}
	in := r.in
	r.in = lent{}
	return in
}

// done gives the request's buffer back at the end of the call, unless it
// was handed over.
func (r *request) done() {
	r.handOver().giveBack()
}

// response is a call's answer as the server hands it to gRPC: its
// ResourceList in a buffer lent to the call (out), which the codec gives
// back once it is sent, or in a slice of its own.
type response struct {
	evaluator.EvaluateFunctionResponse
	out lent
}
