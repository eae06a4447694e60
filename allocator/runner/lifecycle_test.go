package runner_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

// stopTicker is a Ticker ticked by hand that records Stop.
type stopTicker struct {
	c       chan time.Time
	stopped atomic.Bool
}

func (s *stopTicker) C() <-chan time.Time { return s.c }
func (s *stopTicker) Stop()               { s.stopped.Store(true) }

// runRecord is what OnResult and OnRun saw of one run, in order.
type runRecord struct {
	hook string
	res  allocator.Result
}

// recordingRunner starts a Runner whose OnResult and OnRun send to the
// returned channel.
func recordingRunner(t *testing.T, ctx context.Context) (*runner.Runner, *stopTicker, chan runRecord) {
	t.Helper()
	a, err := allocator.New(allocator.Options{Seed: 1})
	require.NoError(t, err)
	ticker := &stopTicker{c: make(chan time.Time)}
	seen := make(chan runRecord, 4)
	r := runner.NewContext(ctx, a, runner.Options{
		NewTicker: func(time.Duration) runner.Ticker { return ticker },
		OnResult:  func(res allocator.Result) { seen <- runRecord{"OnResult", res} },
		OnRun:     func(res allocator.Result) { seen <- runRecord{"OnRun", res} },
	})
	t.Cleanup(r.Close)
	return r, ticker, seen
}

// OnRun reports every run, with offers or without, after OnResult; a run
// while paused reports a zero Result.
func TestRunnerOnRun(t *testing.T) {
	r, ticker, seen := recordingRunner(t, context.Background())

	ticker.c <- time.Time{} // nothing to offer
	if got := <-seen; got.hook != "OnRun" || got.res.Stats.Run != 1 || len(got.res.Offers) != 0 {
		t.Fatalf("after an empty tick: %s with run %d and %d offers; want OnRun, run 1, no offers", got.hook, got.res.Stats.Run, len(got.res.Offers))
	}

	require.NoError(t, r.Do(func(a *allocator.Allocator) error {
		if err := a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active); err != nil {
			return err
		}
		return a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:2;mem:2048", "*"), nil)
	}))
	first, second := <-seen, <-seen
	if first.hook != "OnResult" || second.hook != "OnRun" {
		t.Fatalf("a run with an offer was reported to %s, then %s; want OnResult, then OnRun", first.hook, second.hook)
	}
	if second.res.Stats.Run != 2 || len(second.res.Offers) != 1 || second.res.Offers[0].AgentID != "a1" {
		t.Fatalf("OnRun after the events: run %d, offers %v; want run 2 with one offer of a1", second.res.Stats.Run, second.res.Offers)
	}

	r.Pause()
	ticker.c <- time.Time{}
	if got := <-seen; got.hook != "OnRun" || got.res.Stats.Run != 0 {
		t.Fatalf("a tick while paused: %s with run %d; want OnRun with a zero Result", got.hook, got.res.Stats.Run)
	}
	select {
	case got := <-seen:
		t.Fatalf("a paused run reported twice: %s", got.hook)
	default:
	}
}

// The runner stops when its context is done: Done is closed, the ticker
// stopped, Do refused with ErrClosed wrapping the context's cause, and
// Close still returns.
func TestRunnerContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, ticker, seen := recordingRunner(t, ctx)
	ticker.c <- time.Time{}
	<-seen
	select {
	case <-r.Done():
		t.Fatal("Done is closed while the runner runs")
	default:
	}

	cancel()
	err := r.Do(func(*allocator.Allocator) error {
		t.Error("Do called fn after the context was done")
		return nil
	})
	if !errors.Is(err, runner.ErrClosed) || !errors.Is(err, context.Canceled) {
		t.Errorf("Do after cancel = %v, want ErrClosed and context.Canceled", err)
	}
	<-r.Done()
	if !ticker.stopped.Load() {
		t.Error("the ticker was not stopped")
	}
	if err := r.Do(func(*allocator.Allocator) error { return nil }); !errors.Is(err, runner.ErrClosed) || !errors.Is(err, context.Canceled) {
		t.Errorf("Do after Done = %v, want ErrClosed and context.Canceled", err)
	}
	r.Close()
	r.Close()
}

// Close stops the runner: Done is closed and Do refused with ErrClosed
// alone.
func TestRunnerCloseDone(t *testing.T) {
	r, ticker, _ := recordingRunner(t, context.Background())
	r.Close()
	<-r.Done()
	if !ticker.stopped.Load() {
		t.Error("the ticker was not stopped")
	}
	err := r.Do(func(*allocator.Allocator) error { return nil })
	if !errors.Is(err, runner.ErrClosed) || errors.Is(err, context.Canceled) {
		t.Errorf("Do after Close = %v, want ErrClosed only", err)
	}
}

// The zero Runner does not panic: Do returns ErrZero, which names the
// constructor, and the rest does nothing.
func TestZeroRunner(t *testing.T) {
	var r runner.Runner
	called := false
	err := r.Do(func(*allocator.Allocator) error { called = true; return nil })
	if !errors.Is(err, runner.ErrZero) || called {
		t.Fatalf("Do on a zero Runner = %v (fn called: %v), want ErrZero", err, called)
	}
	if !strings.Contains(err.Error(), "runner.New") {
		t.Errorf("the error %q does not name runner.New", err)
	}
	r.Pause()
	r.Resume()
	r.Close()
	<-r.Done()
}

// Close called from OnRun, which may call back into the Runner, stops the
// runner and returns; the runner's goroutine ends after the callback.
func TestRunnerCloseFromCallback(t *testing.T) {
	a, err := allocator.New(allocator.Options{Seed: 1})
	require.NoError(t, err)
	ticker := &stopTicker{c: make(chan time.Time)}
	var r *runner.Runner
	closed := make(chan struct{})
	r = runner.New(a, runner.Options{
		NewTicker: func(time.Duration) runner.Ticker { return ticker },
		OnRun: func(allocator.Result) {
			r.Close()
			close(closed)
		},
	})
	ticker.c <- time.Time{}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close from OnRun did not return")
	}
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the runner did not stop after the callback")
	}
	if err := r.Do(func(*allocator.Allocator) error { return nil }); !errors.Is(err, runner.ErrClosed) {
		t.Fatalf("Do after Close = %v, want %v", err, runner.ErrClosed)
	}
	if !ticker.stopped.Load() {
		t.Error("the ticker was not stopped")
	}
}
