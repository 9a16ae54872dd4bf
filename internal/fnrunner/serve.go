package fnrunner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// window is the flow control window of a stream and of a connection: a
// ResourceList of a few hundred kilobytes is taken in one go.
const window = 4 << 20

// Serve answers calls on lis in plain text, as porch-server dials its
// function runner, until ctx ends (SIGTERM): then it takes no new call and
// the health service says NOT_SERVING, lets the calls in flight end for up
// to Grace, then stops.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	gs := grpc.NewServer(
		grpc.MaxRecvMsgSize(s.opts.MaxMessageSize),
		grpc.MaxSendMsgSize(s.opts.MaxMessageSize),
		grpc.ForceServerCodecV2(codec{bufs: s.bufs}),
		grpc.InitialWindowSize(window),
		grpc.InitialConnWindowSize(window),
		grpc.WriteBufferSize(256<<10),
		grpc.ReadBufferSize(256<<10),
		// Calls run on goroutines kept from call to call, whose stacks
		// have grown already (a new one per call grew its stack each time).
		grpc.NumStreamWorkers(uint32(s.opts.Jobs)),
	)
	gs.RegisterService(&serviceDesc, s)
	healthpb.RegisterHealthServer(gs, healthService{Server: s.health, stopping: s.stopping})
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	fmt.Fprintf(s.opts.Log, "serving FunctionEvaluator on %s (%d jobs)\n", lis.Addr(), s.opts.Jobs)
	select {
	case err := <-served:
		return fmt.Errorf("cannot serve on %s: %w", lis.Addr(), err)
	case <-ctx.Done():
	}
	fmt.Fprintf(s.opts.Log, "stopping: calls in flight have %s to end\n", s.opts.Grace)
	close(s.stopping)
	s.health.Shutdown()
	stopped := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(stopped)
	}()
	t := time.NewTimer(s.opts.Grace)
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
		fmt.Fprintln(s.opts.Log, "stopping: calls still in flight are cut off")
		gs.Stop()
		<-stopped
	}
	if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	fmt.Fprintln(s.opts.Log, "stopped")
	return nil
}
