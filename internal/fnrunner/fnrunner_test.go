package fnrunner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// runFunc is a runner made of a function.
type runFunc func(in []byte) ([]byte, render.Exit, error)

func (f runFunc) Run(in []byte) ([]byte, render.Exit, error) { return f(in) }

// fakes is a runtime of runners by image (as resolved); other images are
// left Unhandled, with the reason the "" entry's Reason gives.
type fakes map[string]render.Runner

func (f fakes) Runner(fn render.Function) (render.Runner, error) {
	if r, ok := f[fn.Image]; ok {
		return r, nil
	}
	if why, ok := f[""].(reason); ok {
		return nil, &render.Unhandled{Reason: string(why)}
	}
	return nil, &render.Unhandled{}
}

// reason, as the "" entry of fakes, is the reason other images are not run.
type reason string

func (reason) Run([]byte) ([]byte, render.Exit, error) { return nil, render.Exit{}, nil }

// testEnv is the clock and environment of kptkit's functions in the tests.
var testEnv = krmtest.Env(krmtest.Clock, nil)

// ownFunctions runs set-package-context as ghcr.io/kptkit/set-package-context.
var ownFunctions = render.Functions{Functions: []krmfn.Function{pkgcontext.Function}, Env: testEnv}

// client is a connection to a test server.
type client struct {
	evaluator.FunctionEvaluatorClient
	health healthpb.HealthClient
	srv    *Server
	addr   string
}

// start serves o on a free port of 127.0.0.1 until the test ends, and
// returns a client of it (as porch-server dials: plain text, o's message
// size for its own messages).
func start(t testing.TB, o Options) *client {
	t.Helper()
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, lis) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		srv.Close()
	})
	conn := dial(t, lis.Addr().String())
	return &client{evaluator.NewFunctionEvaluatorClient(conn), healthpb.NewHealthClient(conn), srv, lis.Addr().String()}
}

// dial connects to addr as porch-server does, allowing large messages
// both ways (the server's bound is what is tested).
func dial(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// answer is a call's whole answer: the ResourceList and log, or the status.
type answer struct {
	Code    codes.Code
	Message string
	RL, Log string
}

func (c *client) call(ctx context.Context, image string, rl []byte) answer {
	resp, err := c.EvaluateFunction(ctx, &evaluator.EvaluateFunctionRequest{Image: image, ResourceList: rl})
	return answerOf(resp, err)
}

func answerOf(resp *evaluator.EvaluateFunctionResponse, err error) answer {
	if err != nil {
		st := status.Convert(err)
		return answer{Code: st.Code(), Message: st.Message()}
	}
	return answer{Code: codes.OK, RL: string(resp.GetResourceList()), Log: string(resp.GetLog())}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// processed is what krmfn.Process (the function's binary) writes.
func processed(f krmfn.Function, in []byte) (string, string) {
	out, results := krmfn.Process(f, in, testEnv)
	var stderr string
	if results.HasError() {
		stderr = krmfn.Stderr(f, results)
	}
	return string(out), stderr
}

// TestAnswers holds each answer of a call: the function's output and
// stderr, Porch's words for a failed function, NOT_FOUND, the bounds.
func TestAnswers(t *testing.T) {
	t.Parallel()
	good := readFile(t, "../../pkg/pkgcontext/testdata/create/resourcelist.yaml")
	bad := readFile(t, "../../pkg/pkgcontext/testdata/config-data-not-string/resourcelist.yaml")
	goodOut, _ := processed(pkgcontext.Function, good)
	_, badStderr := processed(pkgcontext.Function, bad)
	big := strings.Repeat("x", 70<<10)
	runtime := render.Runtimes{ownFunctions, fakes{
		"": reason("other is not built in"),
		CatalogPrefix + "/set-namespace:v0.4.1": runFunc(func(in []byte) ([]byte, render.Exit, error) {
			return in, render.Exit{Stderr: "set\n"}, nil
		}),
		"example.com/not-a-list": runFunc(func([]byte) ([]byte, render.Exit, error) {
			return []byte("oops"), render.Exit{Code: 1, Stderr: "crashed\n"}, nil
		}),
		"example.com/no-start": runFunc(func([]byte) ([]byte, render.Exit, error) {
			return nil, render.Exit{Stderr: "partial"}, errors.New("exec format error")
		}),
		"example.com/panics": runFunc(func([]byte) ([]byte, render.Exit, error) { panic("boom") }),
		"example.com/memory": runFunc(func([]byte) ([]byte, render.Exit, error) {
			return nil, render.Exit{Stderr: "growing\n"}, &bounded.Exceeded{Memory: true, Limits: bounded.Limits{Memory: 1 << 20, MemoryFlag: "--step-memory"}}
		}),
		"example.com/big": runFunc(func([]byte) ([]byte, render.Exit, error) { return []byte(big), render.Exit{}, nil }),
		"example.com/slow": render.InProcess{Function: krmfn.Function{Name: "slow", Run: func(*resourcelist.ResourceList, krmfn.Env) error {
			select {} // never ends: abandoned at the step limit
		}}},
	}}
	c := start(t, Options{Runtime: runtime, Env: testEnv, Jobs: 2, MaxMessageSize: 64 << 10,
		Limits: bounded.Limits{Time: 50 * time.Millisecond, TimeFlag: "--step-timeout"}})
	for _, tc := range []struct {
		name, image string
		in          []byte
		want        answer
	}{
		{"a kptkit function writes what its binary writes", "ghcr.io/kptkit/set-package-context:v1", good,
			answer{Code: codes.OK, RL: goodOut}},
		{"a failed function: its results and stderr in the words of Porch's wrapper", "ghcr.io/kptkit/set-package-context:v1", bad,
			answer{Code: codes.Internal, Message: `failed to evaluate function "ghcr.io/kptkit/set-package-context:v1" with structured results: ` +
				`[error] config.porch.kpt.dev/v1alpha1/PackageVariant/default/app-prod spec.packageContext.data.debug: functionConfig PackageVariant/app-prod: spec.packageContext.data.debug: must be a string, not the boolean true (quote it: "true")` + "\n\n" +
				`[error] config.porch.kpt.dev/v1alpha1/PackageVariant/default/app-prod spec.packageContext.data.replicas: functionConfig PackageVariant/app-prod: spec.packageContext.data.replicas: must be a string, not the integer 3 (quote it: "3")` +
				" and stderr: " + badStderr}},
		{"a bare name:tag is the catalog's, as porch-server reads it", "set-namespace:v0.4.1", good,
			answer{Code: codes.OK, RL: string(good), Log: "set\n"}},
		{"no runtime runs the image", "example.com/other:v1", good,
			answer{Code: codes.NotFound, Message: `function "example.com/other:v1" not found (other is not built in)`}},
		{"a failed function whose output is no ResourceList", "example.com/not-a-list", good,
			answer{Code: codes.Internal, Message: `failed to parse the output of function "example.com/not-a-list" with stderr 'crashed` + "\n" + `': input was of unexpected kind ""; expected ResourceList`}},
		{"a function that could not start", "example.com/no-start", good,
			answer{Code: codes.Internal, Message: `Failed to execute function "example.com/no-start": exec format error (partial)`}},
		{"a panic fails the call", "example.com/panics", good,
			answer{Code: codes.Internal, Message: `failed to evaluate function "example.com/panics": KRM function panicked with: boom`}},
		{"the memory limit", "example.com/memory", good,
			answer{Code: codes.ResourceExhausted, Message: `function "example.com/memory" exceeded the memory limit of 1MiB (--step-memory): growing` + "\n"}},
		{"the step time limit", "example.com/slow", good,
			answer{Code: codes.DeadlineExceeded, Message: `function "example.com/slow" timed out after 50ms (--step-timeout)`}},
		{"a request past --max-request-body-size", "ghcr.io/kptkit/set-package-context:v1", []byte(big),
			answer{Code: codes.ResourceExhausted, Message: fmt.Sprintf("grpc: received message larger than max (%d vs. 65536)",
				proto.Size(&evaluator.EvaluateFunctionRequest{Image: "ghcr.io/kptkit/set-package-context:v1", ResourceList: []byte(big)}))}},
		{"an answer past --max-request-body-size", "example.com/big", good,
			answer{Code: codes.ResourceExhausted, Message: fmt.Sprintf("trying to send message larger than max (%d vs. 65536)",
				proto.Size(&evaluator.EvaluateFunctionResponse{ResourceList: []byte(big)}))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.call(t.Context(), tc.image, tc.in)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("answer (-want +got):\n%s", d)
			}
		})
	}
}

// TestOwnFunctionGetsTheServersEnv: a kptkit function handed over without
// an Env (an --exec-for binary that is kptkit's) sees the server's.
func TestOwnFunctionGetsTheServersEnv(t *testing.T) {
	t.Parallel()
	now := krmfn.Function{Name: "now", Run: func(rl *resourcelist.ResourceList, env krmfn.Env) error {
		return errors.New(env.Now().UTC().Format(time.RFC3339))
	}}
	c := start(t, Options{Runtime: render.Runtimes{fakes{"example.com/now": render.InProcess{Function: now}}}, Env: testEnv})
	got := c.call(t.Context(), "example.com/now", []byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"))
	want := krmtest.Clock.UTC().Format(time.RFC3339)
	if got.Code != codes.Internal || !strings.Contains(got.Message, "[error]: "+want) {
		t.Errorf("answer %+v, want INTERNAL with the time %s", got, want)
	}
}

// TestLogLine: a call's line names its image (quoted), its answer's code,
// how long it took, and the first line of its error.
func TestLogLine(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	srv, err := New(Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	srv.logCall("ghcr.io/kptkit/set-package-context:v1", nil, 1234567*time.Nanosecond)
	srv.logCall(`odd "image"`+"\n", status.Error(codes.Internal, "failed to evaluate\nand stderr: x"), 3*time.Millisecond)
	srv.logCall("", errors.New("plain"), 0)
	want := `EvaluateFunction "ghcr.io/kptkit/set-package-context:v1": OK in 1.235ms
EvaluateFunction "odd \"image\"\n": Internal in 3ms: failed to evaluate
EvaluateFunction "": Unknown in 0s: plain
`
	if d := cmp.Diff(want, log.String()); d != "" {
		t.Errorf("log (-want +got):\n%s", d)
	}
}
