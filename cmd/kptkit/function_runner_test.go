package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
)

// TestFunctionRunnerFlags: mistakes in the command line are usage errors
// (exit 2) naming the flag.
func TestFunctionRunnerFlags(t *testing.T) {
	t.Parallel()
	usage := func(msg string) string {
		return "kptkit function-runner: " + msg + "\nRun 'kptkit function-runner --help' for usage.\n"
	}
	for _, inv := range []invocation{
		{args: []string{"function-runner", "--port", "9445", "--address", "127.0.0.1:9445"}, code: 2, stderr: usage("give --port or --address, not both")},
		{args: []string{"function-runner", "--port", "70000"}, code: 2, stderr: usage("--port 70000: want a port from 1 to 65535")},
		{args: []string{"function-runner", "--jobs", "-1"}, code: 2, stderr: usage("--jobs -1: want a number of calls, or 0 for the cores this process may use")},
		{args: []string{"function-runner", "--max-request-body-size", "0"}, code: 2, stderr: usage("--max-request-body-size 0: want at least 1 byte and less than 2GiB")},
		{args: []string{"function-runner", "--max-request-body-size", "6M!"}, code: 2, stderr: usage(`--max-request-body-size: invalid value "6M!": want a whole number of bytes with an optional unit: KiB, MiB, GiB (or Ki, Mi, Gi), KB, MB, GB`)},
		{args: []string{"function-runner", "--step-timeout", "-1s"}, code: 2, stderr: usage("--step-timeout is -1s: it takes a positive duration, or 0 for no limit")},
		{args: []string{"function-runner", "--exec-for", "example.com/fn"}, code: 2, stderr: usage(`--exec-for: invalid value "example.com/fn": want IMAGE=PATH`)},
		{args: []string{"function-runner", "serve"}, code: 2, stderr: usage(`unexpected argument "serve": it takes none`)},
	} {
		inv.check(t)
	}
}

// startFunctionRunner serves kptkit function-runner with these flags (and
// --address 127.0.0.1:0) in this process until the test ends, and returns
// a client as porch-server dials it.
func startFunctionRunner(t testing.TB, args ...string) evaluator.FunctionEvaluatorClient {
	t.Helper()
	f, err := parseFunctionRunner(&call{path: "kptkit function-runner", stdout: io.Discard, stderr: io.Discard}, append(args, "--address", "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newFunctionRunner(f, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", f.listen)
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
	return dialEvaluator(t, lis.Addr().String())
}

// dialEvaluator connects as porch-server does: plain text, 6 MiB messages.
func dialEvaluator(t testing.TB, addr string) evaluator.FunctionEvaluatorClient {
	t.Helper()
	return evaluator.NewFunctionEvaluatorClient(dialConn(t, addr))
}

func dialConn(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(6<<20), grpc.MaxCallSendMsgSize(6<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// binaryRun is what a function's binary did with an input.
type binaryRun struct {
	Stdout, Stderr string
	Code           int
}

func runBinary(t *testing.T, bin string, in []byte) binaryRun {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", bin, err)
	}
	return binaryRun{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// sameAsBinary checks a call's answer against the binary's run: its
// stdout and stderr on success; Porch's wrapper's words, ending with its
// stderr, on failure.
func sameAsBinary(t *testing.T, what, image string, bin binaryRun, resp *evaluator.EvaluateFunctionResponse, err error) {
	t.Helper()
	if bin.Code == 0 {
		if err != nil {
			t.Errorf("%s: the binary succeeded, the call failed: %v", what, err)
			return
		}
		if d := cmp.Diff(bin, binaryRun{string(resp.GetResourceList()), string(resp.GetLog()), 0}); d != "" {
			t.Errorf("%s: the call's answer differs from the binary's output (-binary +call):\n%s", what, d)
		}
		return
	}
	st := status.Convert(err)
	prefix := `failed to evaluate function "` + image + `" with structured results: `
	if st.Code() != codes.Internal || !strings.HasPrefix(st.Message(), prefix) || !strings.HasSuffix(st.Message(), " and stderr: "+bin.Stderr) {
		t.Errorf("%s: the binary exited %d with stderr %q; the call answered %v: %q", what, bin.Code, bin.Stderr, st.Code(), st.Message())
	}
}

// ownFunctionPackages are the pkg/ folders of kptkit's functions, whose
// golden inputs the answers are checked on.
var ownFunctionPackages = map[string]string{
	"apply-stack": "stack", "inject-config": "inject", "set-package-context": "pkgcontext",
	"prepend-pipeline": "pipeline", "fan-out-variants": "fanout", "resolve-deps": "deps",
}

// TestFunctionRunnerAnswersAsBinaries: every kptkit function, over each of
// its golden inputs (but those that set the clock), answers what its
// binary writes; by its image and by a --builtin-prefix image. Both read
// the time apply-stack records from SOURCE_DATE_EPOCH: the clock's second
// would differ between two runs.
func TestFunctionRunnerAnswersAsBinaries(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767322800")
	bins := buildEquivBinaries(t)
	c := startFunctionRunner(t, "--builtin-prefix", "registry.example.com/kptkit")
	for _, f := range registry {
		cases, _ := filepath.Glob(filepath.Join("../../pkg", ownFunctionPackages[f.Name], "testdata", "*", "resourcelist.yaml"))
		if len(cases) == 0 {
			t.Errorf("%s has no golden inputs", f.Name)
		}
		for i, in := range cases {
			if _, err := os.Stat(filepath.Join(filepath.Dir(in), "env")); err == nil {
				continue
			}
			input := readTestFile(t, in)
			want := runBinary(t, filepath.Join(bins.dir, "bin", f.Name), input)
			image := "ghcr.io/kptkit/" + f.Name + ":v1"
			if i%2 == 1 {
				image = "registry.example.com/kptkit/" + f.Name
			}
			resp, err := c.EvaluateFunction(t.Context(), &evaluator.EvaluateFunctionRequest{Image: image, ResourceList: input})
			sameAsBinary(t, in, image, want, resp, err)
		}
	}
}

func readTestFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFunctionRunnerSIGTERM runs kptkit function-runner as a process of
// its own: on SIGTERM it takes no new call and says NOT_SERVING, the call
// in flight (an --exec-for command that waits for a file) ends with its
// answer, and the process exits 0.
func TestFunctionRunnerSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wait := `sh -c "touch started; while [ ! -e go ]; do sleep 0.01; done; cat"`
	cmd := helper(nil, "function-runner", "--address", "127.0.0.1:0", "--exec-for", "example.com/wait:v1="+wait)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // ended already when the test passes
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	addr := strings.TrimSuffix(strings.TrimPrefix(awaitLine(t, lines, "serving FunctionEvaluator on "), "serving FunctionEvaluator on "), " ("+strconv.Itoa(runtime.GOMAXPROCS(0))+" jobs)")
	c := dialEvaluator(t, addr)
	inFlight := make(chan error, 1)
	go func() {
		resp, err := c.EvaluateFunction(t.Context(), &evaluator.EvaluateFunctionRequest{Image: "example.com/wait:v1", ResourceList: []byte("kind: ResourceList\n")})
		if err == nil && string(resp.GetResourceList()) != "kind: ResourceList\n" {
			err = fmt.Errorf("answered %q", resp.GetResourceList())
		}
		inFlight <- err
	}()
	for _, err := os.Stat(filepath.Join(dir, "started")); err != nil; _, err = os.Stat(filepath.Join(dir, "started")) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	awaitLine(t, lines, "stopping: calls in flight have 25s to end")
	health := healthpb.NewHealthClient(dialConn(t, addr))
	// The listener closes just after the line: NOT_SERVING or no answer.
	if resp, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{}); err == nil && resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING ||
		err != nil && status.Code(err) != codes.Unavailable {
		t.Errorf("the health service after SIGTERM: %v %v, want NOT_SERVING or UNAVAILABLE", resp, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-inFlight; err != nil {
		t.Errorf("the call in flight: %v", err)
	}
	awaitLine(t, lines, "stopped")
	if err := cmd.Wait(); err != nil {
		t.Errorf("kptkit function-runner: %v", err)
	}
}

// awaitLine reads lines until one starts with prefix, and returns it.
func awaitLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	for line := range lines {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("no line %q", prefix)
	return ""
}
