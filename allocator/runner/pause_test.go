package runner_test

import (
	"errors"
	"testing"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/resources"
	"github.com/stretchr/testify/require"
)

// A paused Runner makes no offers, on ticks or after triggering events;
// Resume runs the batch that was asked for meanwhile. After Close, events
// are refused.
func TestRunnerPauseResume(t *testing.T) {
	a, err := allocator.New(allocator.Options{Seed: 1})
	require.NoError(t, err)
	ticker := &manualTicker{c: make(chan time.Time)}
	results := make(chan allocator.Result, 8)
	r := runner.New(a, runner.Options{
		NewTicker: func(time.Duration) runner.Ticker { return ticker },
		OnResult:  func(res allocator.Result) { results <- res },
	})
	defer r.Close()

	r.Pause()
	require.NoError(t, r.Do(func(a *allocator.Allocator) error {
		if err := a.AddFramework("f", allocator.FrameworkInfo{Roles: []string{"r"}}, nil, allocator.Active); err != nil {
			return err
		}
		return a.AddAgent("a1", allocator.AgentInfo{}, resources.MustParse("cpus:2;mem:2048", "*"), nil)
	}))
	ticker.c <- time.Time{} // the loop has taken the tick once the send returns
	// A second tick can only be taken after the first one's run is over.
	ticker.c <- time.Time{}
	select {
	case res := <-results:
		t.Fatalf("offers while paused: %v", res.Offers)
	default:
	}

	r.Resume()
	select {
	case res := <-results:
		if len(res.Offers) != 1 || res.Offers[0].AgentID != "a1" || res.Offers[0].FrameworkID != "f" {
			t.Fatalf("after Resume: %v", res.Offers)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no run after Resume")
	}

	r.Close()
	if err := r.Do(func(*allocator.Allocator) error { return nil }); !errors.Is(err, runner.ErrClosed) {
		t.Fatalf("Do after Close = %v, want ErrClosed", err)
	}
}
