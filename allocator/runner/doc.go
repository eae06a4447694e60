// Package runner makes an allocator.Allocator safe for concurrent use and
// runs it as a service would: every allocation interval over every agent
// (AllocateAll), and soon after events that ask for a run (Allocate, when
// Allocator.Pending says one was asked for), batching the requests that
// arrive while a run is pending, as Mesos does.
//
// # Usage
//
// The host gives the allocator to New and from then on reaches it only
// through Do, which holds the runner's lock; offers arrive at
// Options.OnResult, from the runner's goroutine and without the lock held,
// so the callback may call Do:
//
//	a, _ := allocator.New(allocator.Options{})
//	r := runner.New(a, runner.Options{
//		OnResult: func(res allocator.Result) { send(res.Offers) },
//	})
//	defer r.Close()
//	_ = r.Do(func(a *allocator.Allocator) error {
//		return a.AddAgent("agent-1", allocator.AgentInfo{Hostname: "h1"}, total, nil)
//	})
//
// A test or a simulation decides when periodic runs happen with a Ticker
// of its own (Options.NewTicker) and learns when each is over from
// Options.OnRun; NewContext ties the runner's life to a context.
package runner
