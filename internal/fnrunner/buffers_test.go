package fnrunner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/internal/fnrunner/evaluator"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/krmtest"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// TestBuffers: a buffer taken has the length asked for, a kept one large
// enough first; at most keep are kept, larger ones first, none over
// maxKept.
func TestBuffers(t *testing.T) {
	caps := func(b *buffers) []int {
		var c []int
		for _, p := range b.free {
			c = append(c, cap(*p))
		}
		return c
	}
	b := newBuffers(2)
	p := b.Get(800)
	if len(*p) != 800 || cap(*p) != 900 {
		t.Errorf("a new buffer: len %d cap %d, want 800 and 900", len(*p), cap(*p))
	}
	b.Put(p)
	if q := b.Get(850); q != p || len(*q) != 850 {
		t.Errorf("Get(850) = a buffer of len %d (the one kept: %v), want the one kept, of len 850", len(*q), q == p)
	}
	if q := b.Get(1000); q == p || len(*q) != 1000 {
		t.Errorf("Get(1000) = the one taken already, or len %d", len(*q))
	}
	for _, n := range []int{100, 300, 200, 50, maxKept + 1} {
		buf := make([]byte, n)
		b.Put(&buf)
	}
	b.Put(nil)
	if d := cmp.Diff([]int{200, 300}, caps(b)); d != "" {
		t.Errorf("buffers kept (-want +got):\n%s", d)
	}
}

// TestCallsReuseBuffers: calls through gRPC, large and small in turn, so
// that a buffer holds an earlier call's bytes past a later call's, answer
// what the function's binary writes; the server keeps buffers for the
// next calls.
func TestCallsReuseBuffers(t *testing.T) {
	t.Parallel()
	c := start(t, Options{Runtime: render.Runtimes{ownFunctions}, Env: testEnv, Jobs: 1})
	fc := "apiVersion: fn.kptkit.dev/v1alpha1\nkind: SetPackageContext\nmetadata: {name: ctx}\ndata: {zone: b}\n"
	inputs := [][]byte{krmtest.Package(20, fc), krmtest.Package(1, fc), krmtest.Package(20, fc+"create: true\n"),
		[]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"), krmtest.Package(1, fc)}
	for i, in := range append(inputs, inputs...) {
		out, _ := processed(pkgcontext.Function, in)
		want := answer{Code: codes.OK, RL: out}
		if got := c.call(t.Context(), "ghcr.io/kptkit/set-package-context:v1", in); got != want {
			t.Errorf("call %d: answer %+v, want %+v", i, got, want)
		}
	}
	c.srv.bufs.mu.Lock()
	defer c.srv.bufs.mu.Unlock()
	if len(c.srv.bufs.free) == 0 {
		t.Error("the server kept no buffer for the next calls")
	}
}

// TestRequestBufferKeptWhileFunctionRuns: the buffer a request was read
// into is not given back while the function reads it, though its caller
// has gone; it is once the function ends.
func TestRequestBufferKeptWhileFunctionRuns(t *testing.T) {
	t.Parallel()
	started, unblock := make(chan struct{}), make(chan struct{})
	block := render.InProcess{Function: krmfn.Function{Name: "block", Run: func(rl *resourcelist.ResourceList, _ krmfn.Env) error {
		close(started)
		<-unblock
		return nil
	}}}
	logged := make(chan string, 8) // a line a call, once it has ended
	c := start(t, Options{Runtime: render.Runtimes{fakes{"example.com/block": block}}, Env: testEnv, Jobs: 1,
		Limits: bounded.Limits{Time: 120e9}, Log: lineWriter(logged)})
	req := &evaluator.EvaluateFunctionRequest{Image: "example.com/block", ResourceList: krmtest.Package(5, "")}
	wire, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	holds := func() bool { // a buffer kept holds the request
		c.srv.bufs.mu.Lock()
		defer c.srv.bufs.mu.Unlock()
		for _, p := range c.srv.bufs.free {
			if bytes.HasPrefix((*p)[:cap(*p)], wire) {
				return true
			}
		}
		return false
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	if got := answerOf(c.EvaluateFunction(ctx, req)); got.Code != codes.Canceled {
		t.Fatalf("answer %+v, want CANCELED", got)
	}
	for line := ""; !strings.HasPrefix(line, `EvaluateFunction "example.com/block": Canceled`); {
		line = <-logged // the server's call has ended
	}
	if holds() {
		t.Error("the request's buffer was given back while its function ran")
	}
	close(unblock)
	h, err := c.srv.slots.take(t.Context()) // the function's slot, freed once it ended
	if err != nil {
		t.Fatal(err)
	}
	h.release()
	if !holds() {
		t.Error("the request's buffer was not given back once its function ended")
	}
}

// lineWriter sends each line written to it, while there is room.
type lineWriter chan string

func (w lineWriter) Write(b []byte) (int, error) {
	select {
	case w <- string(b):
	default:
	}
	return len(b), nil
}
