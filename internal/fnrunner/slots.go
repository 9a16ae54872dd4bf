package fnrunner

import (
	"context"
	"sync"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/render"
)

// slots are the places calls run in, Jobs of them: a call takes one before
// its function runs (waiting, at most until its deadline) and gives it back
// when the function ends — which may be after the caller gave up, since a
// function in process cannot be stopped. While every slot is held by a call
// whose caller is gone, the server is not serving.
type slots struct {
	free    chan struct{} // a token per slot held
	jobs    int
	mu      sync.Mutex
	overrun int           // slots held by calls whose caller is gone
	serving func(ok bool) // told when all slots overrun, and when no longer
}

func newSlots(jobs int, serving func(bool)) *slots {
	return &slots{free: make(chan struct{}, jobs), jobs: jobs, serving: serving}
}

// held is a slot a call holds.
type held struct {
	s       *slots
	ended   bool // its function ended (under s.mu)
	overran bool // its caller went first (under s.mu)
}

// take waits for a free slot until ctx ends.
func (s *slots) take(ctx context.Context) (*held, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case s.free <- struct{}{}:
		return &held{s: s}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// callerGone marks the slot as held by a call whose caller is gone, unless
// its function has ended.
func (h *held) callerGone() {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.ended || h.overran {
		return
	}
	h.overran = true
	s.overrun++
	if s.overrun == s.jobs {
		s.serving(false)
	}
}

// release gives the slot back: its function has ended, or was abandoned
// at the step limit. The second call of the two does nothing.
func (h *held) release() {
	s := h.s
	s.mu.Lock()
	if h.ended {
		s.mu.Unlock()
		return
	}
	h.ended = true
	if h.overran {
		if s.overrun == s.jobs {
			s.serving(true)
		}
		s.overrun--
	}
	s.mu.Unlock()
	<-s.free
}

// ran is what a run gave: the output, in buf when it was written there.
type ran struct {
	out  []byte
	exit render.Exit
	err  error
	buf  lent
}

// run runs the function in a slot and waits for it until ctx ends; the
// slot stays taken until the function ends, or, for a kptkit function in
// process, until the step limit, where it is abandoned. A kptkit function
// over a request the server read into its buffers (req) gives the
// request's buffer back when it ends, and writes its output into another;
// any other keeps the request's (its work may outlive its Run, and its
// output may be its input).
func (s *Server) run(ctx context.Context, r render.Runner, in []byte, req *request) ran {
	h, err := s.slots.take(ctx)
	if err != nil {
		return ran{err: err}
	}
	var inBuf, outBuf lent
	if _, ok := r.(render.InProcess); ok && req != nil {
		inBuf = req.handOver()
		outBuf = lent{bufs: s.bufs, buf: s.bufs.Get(len(in) + len(in)/16)}
	} else {
		req.handOver()
	}
	// Two may send: the function when it ends, and the step limit.
	done := make(chan ran, 2)
	var limit *time.Timer // stopped when the function ends, not when the caller goes
	if _, ok := r.(render.InProcess); ok && s.opts.Limits.Time > 0 {
		limit = time.AfterFunc(s.opts.Limits.Time, func() {
			h.release()
			done <- ran{err: &bounded.Exceeded{Limits: s.opts.Limits}}
		})
	}
	s.workers.do(func() {
		res := s.step(r, in, outBuf)
		if limit != nil {
			limit.Stop()
		}
		inBuf.giveBack()
		h.release()
		done <- res
	})
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
		h.callerGone()
		return ran{err: ctx.Err()}
	}
}

// step runs the function: a runner that starts a process bounds it itself;
// a kptkit function in process is bounded by run, and writes its output
// into out when it is lent one. A panic is an error.
func (s *Server) step(r render.Runner, in []byte, out lent) (res ran) {
	defer func() {
		if p := recover(); p != nil {
			res = ran{err: &panicError{value: p}, buf: out}
		}
	}()
	p, ok := r.(render.InProcess)
	if !ok {
		o, exit, err := r.Run(in)
		return ran{o, exit, err, lent{}}
	}
	if p.Env.Now == nil {
		p.Env = s.opts.Env
	}
	if out.buf == nil {
		o, exit, err := p.Run(in)
		return ran{o, exit, err, lent{}}
	}
	o, exit, err := p.AppendRun((*out.buf)[:0], in)
	*out.buf = o // grown, when the output did not fit
	return ran{o, exit, err, out}
}

func servingStatus(ok bool) healthpb.HealthCheckResponse_ServingStatus {
	if ok {
		return healthpb.HealthCheckResponse_SERVING
	}
	return healthpb.HealthCheckResponse_NOT_SERVING
}
