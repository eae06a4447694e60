package runner_test

import (
	"errors"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/allocatortest"
	"github.com/allot-go/allot/allocator/runner"
)

// manualTicker is a Ticker the test drives.
type manualTicker struct{ c chan time.Time }

func (m *manualTicker) C() <-chan time.Time { return m.c }
func (m *manualTicker) Stop()               {}

// TestRunnerConcurrentEvents drives a Runner from many goroutines until
// 400 events and 20 offers have gone through it: some send random events (each checked by a Harness after
// it is applied), one answers the runner's offers, some read views and
// check the invariants, and one ticks the interval as fast as it can.
// Afterwards the allocator must still keep its accounting. Run it with
// -race. A violation found here cannot be replayed: TestHostRunsBetweenEvents
// makes the same calls in one goroutine, by seed, to find and keep one.
func TestRunnerConcurrentEvents(t *testing.T) {
	h, err := allocatortest.New(allocatortest.Options{Allocator: allocator.Options{Seed: 11}})
	require.NoError(t, err)

	ticker := &manualTicker{c: make(chan time.Time)}
	stop := make(chan struct{})
	results := make(chan allocator.Result, 64)
	var runs, offers atomic.Int64
	r := runner.New(h.Allocator(), runner.Options{
		NewTicker: func(time.Duration) runner.Ticker { return ticker },
		OnResult: func(res allocator.Result) {
			runs.Add(1)
			offers.Add(int64(len(res.Offers)))
			select {
			case results <- res:
			case <-stop:
			}
		},
	})

	var (
		mu         sync.Mutex
		violations []error
		events     atomic.Int64
	)
	report := func(err error) {
		if err != nil {
			mu.Lock()
			violations = append(violations, err)
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	spawn := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	running := func() bool {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}

	// Event senders.
	mix := allocatortest.DefaultMix()
	for i := range 4 {
		spawn(func() {
			p := gopter.DefaultGenParameters()
			p.Rng = rand.New(rand.NewSource(int64(i + 1)))
			g := allocatortest.GenEvent(mix)
			for running() {
				v, _ := g(p).Retrieve()
				ev := v.(allocatortest.Event)
				report(r.Do(func(*allocator.Allocator) error { return h.Step(ev) }))
				events.Add(1)
			}
		})
	}
	// The runner's offers join the harness's outstanding offers, where the
	// senders' Decline, Accept and Operate events find them.
	spawn(func() {
		for {
			select {
			case res := <-results:
				report(r.Do(func(*allocator.Allocator) error { h.Observe(res); return nil }))
			case <-stop:
				return
			}
		}
	})
	// Readers.
	for range 2 {
		spawn(func() {
			for running() {
				report(r.Do(func(a *allocator.Allocator) error {
					_ = a.Describe()
					_ = a.Filters()
					return allocatortest.Check(a)
				}))
			}
		})
	}
	// The interval.
	spawn(func() {
		for {
			select {
			case ticker.c <- time.Time{}:
			case <-stop:
				return
			}
		}
	})

	// Run until enough has happened, however slow the machine: events
	// from every sender, runs with offers. The deadline only stops a run
	// that is stuck.
	deadline := time.Now().Add(2 * time.Minute)
	for events.Load() < 400 || offers.Load() < 20 {
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	require.NoError(t, r.Do(func(a *allocator.Allocator) error { return allocatortest.Check(a) }))
	r.Close()
	if err := r.Do(func(*allocator.Allocator) error { return nil }); !errors.Is(err, runner.ErrClosed) {
		t.Errorf("Do after Close = %v, want %v", err, runner.ErrClosed)
	}
	require.NoError(t, allocatortest.Check(h.Allocator()))
	for i, err := range violations {
		if i == 5 {
			t.Errorf("... and %d more", len(violations)-5)
			break
		}
		t.Error(err)
	}
	t.Logf("%d events, %d runs with offers, %d offers", events.Load(), runs.Load(), offers.Load())
	if events.Load() < 400 || runs.Load() == 0 || offers.Load() < 20 {
		t.Errorf("too little happened: %d events, %d runs, %d offers", events.Load(), runs.Load(), offers.Load())
	}
}
