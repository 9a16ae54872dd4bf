// Package fnrunner serves Porch's FunctionEvaluator gRPC API with kptkit's
// runtime: a call's image and ResourceList go in, the ResourceList and
// stderr the function wrote come out — from the render.Runtimes the caller
// builds (kptkit's functions, the linked catalog functions, --exec-for
// binaries), or, for an image none of them runs, from Porch's own function
// runner (Fallback), else NOT_FOUND. Calls run in parallel up to Jobs, each
// within the step Limits and its caller's deadline.
package fnrunner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/status"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/render"
)

// DefaultMaxMessageSize is Porch's bound on a call's request and answer
// (its --max-request-body-size).
const DefaultMaxMessageSize = 6 << 20

// DefaultGrace is how long calls in flight may go on once the server is
// told to stop (Kubernetes gives a pod 30 s between SIGTERM and SIGKILL).
const DefaultGrace = 25 * time.Second

// CatalogPrefix is what porch-server puts before an image without a "/"
// (a bare name:tag) before it calls its function runner: its
// --default-image-prefix, kpt's runneroptions.GHCRImagePrefix.
const CatalogPrefix = "ghcr.io/kptdev/krm-functions-catalog"

// Options configure a Server.
type Options struct {
	// Runtime runs the functions this server has, in order; an image they
	// all leave Unhandled goes to Fallback.
	Runtime render.Runtimes
	// Env is what kptkit's functions see (the clock, the environment).
	Env krmfn.Env
	// Limits bound each run (a runner that starts processes applies them
	// itself; a kptkit function in process is waited for up to Limits.Time,
	// then abandoned).
	Limits bounded.Limits
	// Jobs is how many calls run at once (at least 1); later calls wait for
	// a slot until their deadline.
	Jobs int
	// MaxMessageSize bounds a request and an answer, in bytes
	// (DefaultMaxMessageSize when 0).
	MaxMessageSize int
	// Fallback is the address (HOST:PORT) of Porch's function runner, which
	// answers the images this server does not run; "" for none.
	Fallback string
	// Grace is how long calls in flight may go on once Serve is told to
	// stop (DefaultGrace when 0).
	Grace time.Duration
	// Log receives a line for each call and for the server's start and
	// stop; nil for none.
	Log io.Writer
}

// Server answers FunctionEvaluator calls. Safe for concurrent use.
type Server struct {
	evaluator.UnimplementedFunctionEvaluatorServer

	opts     Options
	slots    *slots
	workers  *workers
	bufs     *buffers
	health   *health.Server
	stopping chan struct{} // closed when Serve stops
	fallback evaluator.FunctionEvaluatorClient
	conn     *grpc.ClientConn
}

// New returns a server for the options; its connection to Fallback is made
// at the first call that needs it.
func New(o Options) (*Server, error) {
	o.Jobs = max(o.Jobs, 1)
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	s := &Server{opts: o, health: health.NewServer(), stopping: make(chan struct{})}
	s.slots = newSlots(o.Jobs, s.setServing)
	s.workers = newWorkers(o.Jobs)
	s.bufs = newBuffers(2*o.Jobs + 2) // a call's request and answer, and an answer being sent
	s.setServing(true)
	if o.Fallback != "" {
		conn, err := grpc.NewClient(o.Fallback,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(o.MaxMessageSize), grpc.MaxCallSendMsgSize(o.MaxMessageSize)))
		if err != nil {
			return nil, fmt.Errorf("cannot use the fallback function runner %q: %w", o.Fallback, err)
		}
		s.conn, s.fallback = conn, evaluator.NewFunctionEvaluatorClient(conn)
	}
	return s, nil
}

// Close closes the connection to the fallback.
func (s *Server) Close() error {
	if s.conn == nil {
		return nil
	}
	return s.conn.Close()
}

// EvaluateFunction runs the function the request's image names over its
// ResourceList, or forwards the request to the fallback; a panic fails the
// call, never the server.
func (s *Server) EvaluateFunction(ctx context.Context, req *evaluator.EvaluateFunctionRequest) (*evaluator.EvaluateFunctionResponse, error) {
	resp, err := s.evaluate(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	return &resp.EvaluateFunctionResponse, nil
}

// serviceDesc is the FunctionEvaluator service as gRPC serves it: the
// generated one, but for the handler of EvaluateFunction, which reads the
// request into one of the server's buffers (the server has no
// interceptor).
var serviceDesc = grpc.ServiceDesc{
	ServiceName: evaluator.FunctionEvaluator_ServiceDesc.ServiceName,
	HandlerType: evaluator.FunctionEvaluator_ServiceDesc.HandlerType,
	Methods: []grpc.MethodDesc{{
		MethodName: "EvaluateFunction",
		Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			req := new(request)
			if err := dec(req); err != nil {
				return nil, err
			}
			resp, err := srv.(*Server).evaluate(ctx, &req.EvaluateFunctionRequest, req)
			if err != nil {
				return nil, err
			}
			return resp, nil
		},
	}},
	Metadata: evaluator.FunctionEvaluator_ServiceDesc.Metadata,
}

// evaluate is EvaluateFunction; lent, when gRPC's handler calls it, is the
// request as read into one of the server's buffers (given back once nothing
// reads it), and the answer of a kptkit function is written into another.
func (s *Server) evaluate(ctx context.Context, req *evaluator.EvaluateFunctionRequest, lent *request) (resp *response, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, panicked(req.GetImage(), p)
		}
		if lent != nil {
			lent.done()
		}
		s.logCall(req.GetImage(), err, time.Since(start))
	}()
	runner, err := s.runner(req.GetImage())
	var unmatched *notFound
	switch {
	case errors.As(err, &unmatched) && s.fallback != nil:
		return s.forward(ctx, req)
	case errors.As(err, &unmatched):
		return nil, status.Error(codes.NotFound, err.Error())
	case err != nil:
		return nil, status.Errorf(codes.Internal, "Failed to execute function %q: %s", req.GetImage(), err)
	}
	res := s.run(ctx, runner, req.GetResourceList(), lent)
	switch {
	case res.err != nil:
		res.buf.giveBack()
		return nil, runError(req.GetImage(), res.exit, res.err)
	case res.exit.Code != 0:
		err := exitError(req.GetImage(), res.out, res.exit.Stderr)
		res.buf.giveBack()
		return nil, err
	}
	resp = &response{out: res.buf}
	resp.ResourceList, resp.Log = res.out, []byte(res.exit.Stderr)
	return resp, nil
}

// forward has the fallback answer the request.
func (s *Server) forward(ctx context.Context, req *evaluator.EvaluateFunctionRequest) (*response, error) {
	got, err := s.fallback.EvaluateFunction(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := new(response)
	resp.ResourceList, resp.Log = got.GetResourceList(), got.GetLog()
	return resp, nil
}

// runner is the runner of an image: the first of the runtimes that takes
// it, or a *notFound (carrying the runtimes' reasons).
func (s *Server) runner(image string) (render.Runner, error) {
	rts := append(s.opts.Runtime[:len(s.opts.Runtime):len(s.opts.Runtime)], notFoundRuntime{image: image})
	return rts.Runner(render.Function{Image: Resolve(image)})
}

// Resolve reads an image as porch-server hands it on: a name without a "/"
// (set-namespace:v0.4.1) is the catalog's, under CatalogPrefix.
func Resolve(image string) string {
	if image == "" || strings.Contains(image, "/") {
		return image
	}
	return CatalogPrefix + "/" + image
}

// notFound is an image no runtime runs: Porch's words for it.
type notFound struct{ image string }

func (e *notFound) Error() string { return fmt.Sprintf("function %q not found", e.image) }

// notFoundRuntime comes last: it answers every function with a notFound,
// to which render.Runtimes adds the reasons the others gave.
type notFoundRuntime struct{ image string }

func (r notFoundRuntime) Runner(render.Function) (render.Runner, error) {
	return nil, &notFound{image: r.image}
}

// setServing sets the health service's answer, for the whole server and
// for the FunctionEvaluator service.
func (s *Server) setServing(ok bool) {
	st := servingStatus(ok)
	s.health.SetServingStatus("", st)
	s.health.SetServingStatus(evaluator.FunctionEvaluator_ServiceDesc.ServiceName, st)
}

// logCall writes a line for a call: its image, its answer's code and how
// long it took, and the first line of the error.
func (s *Server) logCall(image string, err error, took time.Duration) {
	code, msg := codes.OK, ""
	if err != nil {
		st := status.Convert(err)
		code, msg = st.Code(), st.Message()
	}
	line := append(make([]byte, 0, 128), "EvaluateFunction "...)
	line = strconv.AppendQuote(line, image)
	line = append(append(append(line, ": "...), code.String()...), " in "...)
	line = append(line, took.Round(time.Microsecond).String()...)
	if err != nil {
		line = append(append(line, ": "...), firstLine(msg)...)
	}
	s.opts.Log.Write(append(line, '\n'))
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
