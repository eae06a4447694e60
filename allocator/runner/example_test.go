package runner_test

import (
	"context"
	"fmt"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/resources"
)

// handTicker is an interval ticker ticked by hand: a send is a tick.
type handTicker chan time.Time

func (t handTicker) C() <-chan time.Time { return t }
func (handTicker) Stop()                 {}

// A Runner in a service: events go through Do, offers come to OnResult,
// OnRun says when each run is over, and the service's context stops it.
// The example ticks the interval itself, so that its output is always the
// same; a service leaves Options.NewTicker nil to tick every
// Options.AllocationInterval.
func ExampleRunner() {
	a, _ := allocator.New(allocator.Options{Seed: 1})
	tick := make(handTicker)
	runs := make(chan allocator.Result)
	ctx, cancel := context.WithCancel(context.Background())
	r := runner.NewContext(ctx, a, runner.Options{
		NewTicker: func(time.Duration) runner.Ticker { return tick },
		OnResult: func(res allocator.Result) {
			for _, o := range res.Offers {
				fmt.Printf("run %d: %s is offered %s on %s\n", res.Stats.Run, o.FrameworkID, o.Resources.Quantities(), o.AgentID)
			}
		},
		OnRun: func(res allocator.Result) { runs <- res },
	})

	// An agent and a framework join: that calls for a run.
	_ = r.Do(func(a *allocator.Allocator) error {
		if err := a.AddAgent("agent-1", allocator.AgentInfo{}, resources.MustParse("cpus:4;mem:8192", "*"), nil); err != nil {
			return err
		}
		return a.AddFramework("web", allocator.FrameworkInfo{Roles: []string{"web"}}, nil, allocator.Active)
	})
	o := (<-runs).Offers[0]

	// The framework declines without a filter; the next tick offers the
	// agent again.
	_ = r.Do(func(a *allocator.Allocator) error {
		return a.RecoverResources(o.FrameworkID, o.AgentID, o.Resources, nil)
	})
	tick <- time.Time{}
	<-runs

	// A tick with nothing to offer is a run too.
	tick <- time.Time{}
	res := <-runs
	fmt.Printf("run %d: %d offers\n", res.Stats.Run, len(res.Offers))

	cancel()
	<-r.Done()
	fmt.Println(r.Do(func(*allocator.Allocator) error { return nil }))
	// Output:
	// run 1: web is offered cpus:4; mem:8192 on agent-1
	// run 2: web is offered cpus:4; mem:8192 on agent-1
	// run 3: 0 offers
	// runner: closed: context canceled
}
