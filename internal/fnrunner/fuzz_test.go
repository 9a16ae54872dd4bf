package fnrunner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
	"github.com/kptkit/kptkit/pkg/inject"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/pipeline"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/render"
)

// fuzzFunctions are the kptkit functions the fuzz target's server runs.
var fuzzFunctions = []krmfn.Function{pkgcontext.Function, pipeline.Function, inject.Function}

// FuzzRequest sends any request, as bytes on the wire, down the request
// path: decoding (the server's codec), the image's resolution and runner, the run, the answer.
// What must hold: no panic, a known code; a kptkit function answers what
// its binary writes; a function that fails with any output (the request's
// ResourceList, echoed with exit 1) is told in Porch's words.
func FuzzRequest(f *testing.F) {
	var inputs [][]byte
	for _, dir := range []string{"pkgcontext", "pipeline", "inject"} {
		cases, _ := filepath.Glob(filepath.Join("../../pkg", dir, "testdata", "*", "resourcelist.yaml"))
		for _, c := range cases {
			inputs = append(inputs, readFile(f, c))
		}
	}
	images := []string{"ghcr.io/kptkit/set-package-context:v1", "ghcr.io/kptkit/prepend-pipeline", "ghcr.io/kptkit/inject-config@sha256:00",
		"example.com/fails", "fails", "set-namespace:v0.4.1", "example.com/other:v1", "", ":", "/", "a@b:c/d"}
	for i, in := range inputs {
		b, _ := proto.Marshal(&evaluator.EvaluateFunctionRequest{Image: images[i%len(images)], ResourceList: in})
		f.Add(b)
	}
	srv, err := New(Options{Env: testEnv, Runtime: render.Runtimes{
		render.Functions{Functions: fuzzFunctions, Env: testEnv},
		fakes{"example.com/fails": runFunc(func(in []byte) ([]byte, render.Exit, error) {
			return in, render.Exit{Code: 1, Stderr: "failed\n"}, nil
		})},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		var sent evaluator.EvaluateFunctionRequest
		if proto.Unmarshal(wire, &sent) != nil {
			return
		}
		// Read as gRPC's handler reads it: into the server's buffers, which
		// hold what the earlier inputs left there.
		req := new(request)
		if err := (codec{bufs: srv.bufs}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, req); err != nil {
			t.Fatalf("the codec refused %q, which proto.Unmarshal reads: %v", wire, err)
		}
		watchdog := time.AfterFunc(10*time.Second, func() {
			panic(fmt.Sprintf("%q took over 10s on %q", sent.GetImage(), sent.GetResourceList()))
		})
		defer watchdog.Stop()
		resp, err := srv.evaluate(context.Background(), &req.EvaluateFunctionRequest, req)
		var got answer
		if err == nil {
			got = answerOf(&resp.EvaluateFunctionResponse, nil)
			resp.out.giveBack() // as once sent
		} else {
			got = answerOf(nil, err)
		}
		checkAnswer(t, &sent, got)
	})
}

// checkAnswer checks what must hold of any answer to req.
func checkAnswer(t *testing.T, req *evaluator.EvaluateFunctionRequest, got answer) {
	t.Helper()
	if strings.Contains(got.Message, "panicked") {
		t.Fatalf("%q panicked on %q: %s", req.GetImage(), req.GetResourceList(), got.Message)
	}
	switch got.Code {
	case codes.OK, codes.Internal, codes.NotFound:
	default:
		t.Fatalf("%q answered %v", req.GetImage(), got)
	}
	if r, err := render.Functions(render.Functions{Functions: fuzzFunctions}).Runner(render.Function{Image: Resolve(req.GetImage())}); err == nil {
		out, stderr := processed(r.(render.InProcess).Function, req.GetResourceList())
		want := answer{Code: codes.OK, RL: out}
		if stderr != "" {
			want = answer{Code: codes.Internal}
			got.Message = ""
		}
		if got != want {
			t.Fatalf("%q on %q answered %+v, want its binary's %+v", req.GetImage(), req.GetResourceList(), got, want)
		}
	}
	if req.GetImage() == "example.com/fails" && !strings.HasPrefix(got.Message, `failed to evaluate function "example.com/fails" with structured results: `) &&
		!strings.HasPrefix(got.Message, `failed to parse the output of function "example.com/fails" with stderr 'failed`) {
		t.Fatalf("a failed function on %q answered %+v", req.GetResourceList(), got)
	}
}
