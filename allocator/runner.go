package allocator

import (
	"errors"
	"sync"
	"time"
)

// ErrClosed is returned by a Runner after Close.
var ErrClosed = errors.New("allocator: runner closed")

// Ticker delivers allocation-interval ticks. *time.Ticker fits through
// TickerFunc; tests pass a channel they control.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type timeTicker struct{ t *time.Ticker }

func (t timeTicker) C() <-chan time.Time { return t.t.C }
func (t timeTicker) Stop()               { t.t.Stop() }

// TimeTicker returns a Ticker backed by time.NewTicker.
func TimeTicker(d time.Duration) Ticker { return timeTicker{time.NewTicker(d)} }

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	// NewTicker makes the interval ticker; nil means TimeTicker. Every tick
	// runs an allocation over all agents.
	NewTicker func(interval time.Duration) Ticker
	// OnResult receives every run that made offers or inverse offers, in
	// order, from the runner's goroutine and without the runner's lock held:
	// it may call back into the Runner.
	OnResult func(Result)
}

// Runner owns an Allocator and makes it safe for concurrent use: events go
// through Do, which holds a mutex; allocation runs happen every interval and
// after events that trigger one. Triggers that arrive while a run is pending
// are batched into that run, as Mesos batches allocation requests.
type Runner struct {
	mu       sync.Mutex
	a        *Allocator
	opts     RunnerOptions
	trigger  chan struct{}
	done     chan struct{}
	finished chan struct{}
	closed   bool
}

// NewRunner starts a Runner around a; the caller must not use a directly
// afterwards. Close stops it.
func NewRunner(a *Allocator, opts RunnerOptions) *Runner {
	if opts.NewTicker == nil {
		opts.NewTicker = TimeTicker
	}
	r := &Runner{
		a:        a,
		opts:     opts,
		trigger:  make(chan struct{}, 1),
		done:     make(chan struct{}),
		finished: make(chan struct{}),
	}
	ticker := opts.NewTicker(a.opts.AllocationInterval)
	go r.loop(ticker)
	return r
}

// Do runs fn with exclusive access to the allocator. If fn leaves an
// allocation pending (it added an agent, activated a framework, revived
// offers, ...), the runner schedules a run.
func (r *Runner) Do(fn func(a *Allocator) error) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	err := fn(r.a)
	pending := r.a.pendingAll || len(r.a.pending) > 0
	r.mu.Unlock()
	if pending {
		r.poke()
	}
	return err
}

func (r *Runner) poke() {
	select {
	case r.trigger <- struct{}{}:
	default: // a run is already pending: this request joins it
	}
}

// Pause stops allocation runs until Resume.
func (r *Runner) Pause() { _ = r.Do(func(a *Allocator) error { a.Pause(); return nil }) }

// Resume lets allocation runs happen again, and runs one if any was
// requested while paused.
func (r *Runner) Resume() {
	_ = r.Do(func(a *Allocator) error { a.Resume(); return nil })
	r.poke()
}

// Close stops the runner and waits for its goroutine to end. It is safe to
// call more than once.
func (r *Runner) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.finished
		return
	}
	r.closed = true
	close(r.done)
	r.mu.Unlock()
	<-r.finished
}

func (r *Runner) loop(ticker Ticker) {
	defer close(r.finished)
	defer ticker.Stop()
	for {
		var all bool
		select {
		case <-r.done:
			return
		case <-ticker.C():
			all = true
		case <-r.trigger:
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return
		}
		var res Result
		if all {
			res = r.a.AllocateAll()
		} else {
			res = r.a.Allocate()
		}
		r.mu.Unlock()
		if r.opts.OnResult != nil && (len(res.Offers) > 0 || len(res.InverseOffers) > 0) {
			r.opts.OnResult(res)
		}
	}
}
