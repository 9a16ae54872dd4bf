package fnrunner

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/pkgcontext"
	"github.com/kptkit/kptkit/pkg/render"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// gate is a runner that counts the runs in progress and blocks each until
// the gate opens.
type gate struct {
	open    chan struct{}
	started chan struct{} // a value for each run that starts
	running atomic.Int32
	most    atomic.Int32 // the most runs in progress at once
}

func newGate() *gate { return &gate{open: make(chan struct{}), started: make(chan struct{}, 1024)} }

func (g *gate) Run(in []byte) ([]byte, render.Exit, error) {
	n := g.running.Add(1)
	defer g.running.Add(-1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	g.started <- struct{}{}
	<-g.open
	return in, render.Exit{}, nil
}

const list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"

// watchHealth returns the health service's answers for the whole server,
// as they change.
func watchHealth(t *testing.T, c *client) <-chan healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	stream, err := c.health.Watch(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan healthpb.HealthCheckResponse_ServingStatus, 16)
	go func() {
		defer close(ch)
		for {
			resp, err := stream.Recv()
			if err != nil {
				return
			}
			ch <- resp.GetStatus()
		}
	}()
	return ch
}

// await waits for the health service to answer want.
func await(t *testing.T, ch <-chan healthpb.HealthCheckResponse_ServingStatus, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	for got := range ch {
		if got == want {
			return
		}
	}
	t.Fatalf("the health service ended before answering %s", want)
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestOverrunCallsKeepTheirSlots: calls whose callers gave up keep their
// slots until their functions end; while they hold every slot, a call
// waits until its deadline and the server is NOT_SERVING; then SERVING.
func TestOverrunCallsKeepTheirSlots(t *testing.T) {
	t.Parallel()
	g := newGate()
	c := start(t, Options{Runtime: render.Runtimes{fakes{"example.com/gate": g}}, Jobs: 2})
	health := watchHealth(t, c)
	await(t, health, healthpb.HealthCheckResponse_SERVING)
	var wg sync.WaitGroup
	wg.Go(func() { // a caller whose deadline passes while its function runs
		if got := c.call(withTimeout(t, time.Second), "example.com/gate", []byte(list)); got.Code != codes.DeadlineExceeded {
			t.Errorf("the call past its deadline answered %+v", got)
		}
	})
	<-g.started
	ctx, cancel := context.WithCancel(t.Context())
	wg.Go(func() { // a caller that gives up once its function runs
		if got := c.call(ctx, "example.com/gate", []byte(list)); got.Code != codes.Canceled {
			t.Errorf("the call given up answered %v", got)
		}
	})
	<-g.started
	cancel()
	wg.Wait()
	await(t, health, healthpb.HealthCheckResponse_NOT_SERVING)
	if got := c.call(withTimeout(t, 100*time.Millisecond), "example.com/gate", []byte(list)); got.Code != codes.DeadlineExceeded {
		t.Errorf("a call while every slot is held answered %+v, want DEADLINE_EXCEEDED", got)
	}
	close(g.open)
	await(t, health, healthpb.HealthCheckResponse_SERVING)
	if d := cmp.Diff(answer{Code: codes.OK, RL: list}, c.call(t.Context(), "example.com/gate", []byte(list))); d != "" {
		t.Errorf("a call once the slots are free (-want +got):\n%s", d)
	}
}

// TestCallsWaitForASlot: 64 callers at once, 4 jobs: every call answers,
// and no more than 4 functions ever run at once (run with -race).
func TestCallsWaitForASlot(t *testing.T) {
	t.Parallel()
	g := newGate()
	c := start(t, Options{Runtime: render.Runtimes{fakes{"example.com/gate": g}, ownFunctions}, Jobs: 4})
	in := readFile(t, "../../pkg/pkgcontext/testdata/create/resourcelist.yaml")
	want, _ := processed(pkgcontext.Function, in)
	answers := make([]answer, 64)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			image := "example.com/gate"
			if i%2 == 1 {
				image = "ghcr.io/kptkit/set-package-context:v1"
			}
			answers[i] = c.call(t.Context(), image, in)
		})
	}
	for range 4 {
		<-g.started // the slots are full: the others wait
	}
	close(g.open)
	wg.Wait()
	for i, got := range answers {
		w := answer{Code: codes.OK, RL: string(in)}
		if i%2 == 1 {
			w.RL = want
		}
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("call %d (-want +got):\n%s", i, d)
		}
	}
	if most := g.most.Load(); most > 4 {
		t.Errorf("%d functions ran at once with 4 jobs", most)
	}
}

// TestCallerDeadline: a function still running at its caller's deadline
// answers DEADLINE_EXCEEDED.
func TestCallerDeadline(t *testing.T) {
	t.Parallel()
	g := newGate()
	defer close(g.open)
	c := start(t, Options{Runtime: render.Runtimes{fakes{"example.com/gate": g}}, Jobs: 1})
	got := c.call(withTimeout(t, 100*time.Millisecond), "example.com/gate", []byte(list))
	if got.Code != codes.DeadlineExceeded { // its message is the client's or the server's
		t.Errorf("answer %+v, want DEADLINE_EXCEEDED", got)
	}
}

// TestStepLimitFreesTheSlot: a kptkit function in process still running at
// the step limit is abandoned and its slot freed, whether its caller waits
// (it is told DEADLINE_EXCEEDED at the limit) or went before (the server is
// NOT_SERVING until the limit, then SERVING).
func TestStepLimitFreesTheSlot(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	defer close(stuck)
	blocks := render.InProcess{Function: krmfn.Function{Name: "blocks", Run: func(*resourcelist.ResourceList, krmfn.Env) error {
		<-stuck
		return nil
	}}}
	c := start(t, Options{Runtime: render.Runtimes{fakes{"example.com/blocks": blocks}, ownFunctions}, Jobs: 1,
		Limits: bounded.Limits{Time: 200 * time.Millisecond, TimeFlag: "--step-timeout"}})
	health := watchHealth(t, c)
	await(t, health, healthpb.HealthCheckResponse_SERVING)
	if got := c.call(withTimeout(t, 20*time.Millisecond), "example.com/blocks", []byte(list)); got.Code != codes.DeadlineExceeded {
		t.Errorf("a call whose caller went answered %+v", got)
	}
	await(t, health, healthpb.HealthCheckResponse_NOT_SERVING)
	await(t, health, healthpb.HealthCheckResponse_SERVING)
	want := answer{Code: codes.DeadlineExceeded, Message: `function "example.com/blocks" timed out after 200ms (--step-timeout)`}
	if d := cmp.Diff(want, c.call(t.Context(), "example.com/blocks", []byte(list))); d != "" {
		t.Errorf("a call past the step limit (-want +got):\n%s", d)
	}
	in := readFile(t, "../../pkg/pkgcontext/testdata/create/resourcelist.yaml")
	out, _ := processed(pkgcontext.Function, in)
	if d := cmp.Diff(answer{Code: codes.OK, RL: out}, c.call(withTimeout(t, 10*time.Second), "ghcr.io/kptkit/set-package-context:v1", in)); d != "" {
		t.Errorf("a call once both were abandoned (-want +got):\n%s", d)
	}
}
