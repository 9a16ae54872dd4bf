package fnrunner

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// healthService is the standard health service (grpc.health.v1.Health),
// whose Watch streams end once the server stops and they have said
// NOT_SERVING: a watcher must not hold the stop, which waits for the
// calls in flight only.
type healthService struct {
	*health.Server
	stopping <-chan struct{} // closed when the server stops
}

// Watch implements grpc.health.v1.Health.
func (h healthService) Watch(req *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	w := &endingStream{Health_WatchServer: stream, ctx: ctx, cancel: cancel, stopping: h.stopping}
	w.last.Store(-1)
	go func() {
		select {
		case <-h.stopping:
			if w.last.Load() == int32(healthpb.HealthCheckResponse_NOT_SERVING) {
				cancel()
			}
		case <-ctx.Done():
		}
	}()
	return h.Server.Watch(req, w)
}

// endingStream is a Watch stream that ends (its context cancelled) once
// the server is stopping and NOT_SERVING has been sent.
type endingStream struct {
	healthpb.Health_WatchServer
	ctx      context.Context
	cancel   context.CancelFunc
	stopping <-chan struct{}
	last     atomic.Int32 // the status last sent
}

func (w *endingStream) Context() context.Context { return w.ctx }

func (w *endingStream) Send(r *healthpb.HealthCheckResponse) error {
	err := w.Health_WatchServer.Send(r)
	w.last.Store(int32(r.GetStatus()))
	select {
	case <-w.stopping:
		if r.GetStatus() == healthpb.HealthCheckResponse_NOT_SERVING {
			w.cancel()
		}
	default:
	}
	return err
}
