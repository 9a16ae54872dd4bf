package fnrunner

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
	"github.com/kptkit/kptkit/pkg/render"
)

// porchRunner stands in for Porch's function runner: it answers each
// image as its table says, and records the requests it got.
type porchRunner struct {
	evaluator.UnimplementedFunctionEvaluatorServer
	got chan *evaluator.EvaluateFunctionRequest
}

func (p *porchRunner) EvaluateFunction(_ context.Context, req *evaluator.EvaluateFunctionRequest) (*evaluator.EvaluateFunctionResponse, error) {
	p.got <- req
	switch req.GetImage() {
	case "example.com/porch-fails:v1":
		return nil, status.Error(codes.FailedPrecondition, "pod not ready")
	case "example.com/porch-runs:v1":
		return &evaluator.EvaluateFunctionResponse{ResourceList: append([]byte("# by porch\n"), req.GetResourceList()...), Log: []byte("porch log")}, nil
	}
	return nil, status.Errorf(codes.NotFound, "function %q not found", req.GetImage())
}

// startPorch serves a porchRunner on a free port until the test ends.
func startPorch(t *testing.T) (*porchRunner, string) {
	t.Helper()
	p := &porchRunner{got: make(chan *evaluator.EvaluateFunctionRequest, 16)}
	gs := grpc.NewServer()
	evaluator.RegisterFunctionEvaluatorServer(gs, p)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis) //nolint:errcheck // ends with Stop
	t.Cleanup(gs.Stop)
	return p, lis.Addr().String()
}

// TestFallback: images this server does not run go, unchanged, to Porch's
// function runner, and its answers come back as they are; the images it
// runs never go there.
func TestFallback(t *testing.T) {
	t.Parallel()
	porch, addr := startPorch(t)
	c := start(t, Options{Runtime: render.Runtimes{ownFunctions}, Fallback: addr, Env: testEnv})
	in := readFile(t, "../../pkg/pkgcontext/testdata/create/resourcelist.yaml")
	own, _ := processed(ownFunctions.Functions[0], in)
	for _, tc := range []struct {
		image     string
		want      answer
		forwarded bool
	}{
		{"example.com/porch-runs:v1", answer{Code: codes.OK, RL: "# by porch\n" + string(in), Log: "porch log"}, true},
		{"example.com/porch-fails:v1", answer{Code: codes.FailedPrecondition, Message: "pod not ready"}, true},
		{"apply-setters:v0.2.2", answer{Code: codes.NotFound, Message: `function "apply-setters:v0.2.2" not found`}, true},
		{"ghcr.io/kptkit/set-package-context:v1", answer{Code: codes.OK, RL: own}, false},
	} {
		got := c.call(t.Context(), tc.image, in)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.image, d)
		}
		select {
		case req := <-porch.got:
			if !tc.forwarded {
				t.Errorf("%s went to the fallback", tc.image)
			} else if req.GetImage() != tc.image || string(req.GetResourceList()) != string(in) {
				t.Errorf("the fallback got %q and %d bytes, want %q and the request's %d", req.GetImage(), len(req.GetResourceList()), tc.image, len(in))
			}
		default:
			if tc.forwarded {
				t.Errorf("%s did not go to the fallback", tc.image)
			}
		}
	}
}

// TestFallbackDown: a fallback that does not answer is UNAVAILABLE.
func TestFallbackDown(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	c := start(t, Options{Runtime: render.Runtimes{ownFunctions}, Fallback: addr})
	if got := c.call(t.Context(), "example.com/other:v1", []byte(list)); got.Code != codes.Unavailable {
		t.Errorf("answer %+v, want UNAVAILABLE", got)
	}
}

// TestStop: once told to stop, the server is NOT_SERVING and takes no new
// connection; a call in flight ends with its answer; a health watcher is
// told NOT_SERVING and let go (it does not hold the stop: the grace is an
// hour); then Serve returns.
func TestStop(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv, err := New(Options{Runtime: render.Runtimes{fakes{"example.com/gate": g}}, Grace: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, lis) }()
	c := &client{FunctionEvaluatorClient: evaluator.NewFunctionEvaluatorClient(dial(t, lis.Addr().String()))}
	c.health = healthpb.NewHealthClient(dial(t, lis.Addr().String()))
	health := watchHealth(t, c)
	await(t, health, healthpb.HealthCheckResponse_SERVING)
	inFlight := make(chan answer, 1)
	go func() { inFlight <- c.call(t.Context(), "example.com/gate", []byte(list)) }()
	<-g.started
	stop()
	await(t, health, healthpb.HealthCheckResponse_NOT_SERVING)
	late := dial(t, lis.Addr().String())
	if _, err := evaluator.NewFunctionEvaluatorClient(late).EvaluateFunction(withTimeout(t, time.Second),
		&evaluator.EvaluateFunctionRequest{Image: "example.com/gate", ResourceList: []byte(list)}); status.Code(err) != codes.Unavailable && status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("a new connection after stop: %v, want UNAVAILABLE", err)
	}
	close(g.open)
	if d := cmp.Diff(answer{Code: codes.OK, RL: list}, <-inFlight); d != "" {
		t.Errorf("the call in flight (-want +got):\n%s", d)
	}
	for range health { // the watch ends
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestStopCutsOffAfterGrace: a call still in flight when the grace ends is
// cut off, and Serve returns.
func TestStopCutsOffAfterGrace(t *testing.T) {
	t.Parallel()
	g := newGate()
	defer close(g.open)
	srv, err := New(Options{Runtime: render.Runtimes{fakes{"example.com/gate": g}}, Grace: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, lis) }()
	c := &client{FunctionEvaluatorClient: evaluator.NewFunctionEvaluatorClient(dial(t, lis.Addr().String()))}
	inFlight := make(chan answer, 1)
	go func() { inFlight <- c.call(t.Context(), "example.com/gate", []byte(list)) }()
	<-g.started
	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if got := <-inFlight; got.Code != codes.Unavailable {
		t.Errorf("the call cut off answered %+v, want UNAVAILABLE", got)
	}
}
