package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-go/allot/allocator"
)

// ErrClosed is returned by a Runner after Close, or once the context it
// was made with is done (the error then also wraps the context's cause,
// context.Canceled for example).
var ErrClosed = errors.New("runner: closed")

// ErrZero is returned by a Runner that was not made by New or NewContext,
// such as the zero Runner.
var ErrZero = errors.New("runner: Runner used without runner.New")

// Ticker delivers allocation-interval ticks to a Runner. TimeTicker, the
// default, wraps a *time.Ticker. A test or a simulation makes its own (a
// channel it sends to, and a Stop that does nothing) and passes it through
// Options.NewTicker, so that it decides when runs happen.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type timeTicker struct{ t *time.Ticker }

func (t timeTicker) C() <-chan time.Time { return t.t.C }
func (t timeTicker) Stop()               { t.t.Stop() }

// TimeTicker returns a Ticker backed by time.NewTicker.
func TimeTicker(d time.Duration) Ticker { return timeTicker{time.NewTicker(d)} }

// Options configure a Runner.
type Options struct {
	// NewTicker makes the interval ticker, given Options.AllocationInterval;
	// nil means TimeTicker. Every tick runs an allocation over all agents.
	NewTicker func(interval time.Duration) Ticker
	// OnResult receives every run that made offers or inverse offers, in
	// order, from the runner's goroutine and without the runner's lock held:
	// it may call back into the Runner.
	OnResult func(allocator.Result)
	// OnRun is called after every run, whether it made offers or not, after
	// OnResult, from the runner's goroutine and without the runner's lock
	// held: it may call back into the Runner. It tells a host that a run it
	// caused (a tick, an event given to Do, Resume) is over, for its tests
	// and its metrics. A run while paused makes nothing and reports a zero
	// Result (Stats.Run 0). The runner waits for OnRun to return before it
	// runs again.
	OnRun func(allocator.Result)
}

// Runner owns an Allocator and makes it safe for concurrent use. Events go
// through Do, which holds a mutex. Allocation runs happen on every tick of
// the interval ticker (over all agents) and after events that call for one
// (over the agents concerned, see Allocator.Allocate); triggers that arrive while a
// run is pending are batched into that run, as Mesos batches allocation
// requests. Offers reach the host through Options.OnResult, and
// Options.OnRun tells it when each run is over.
//
// A Runner runs until Close or, made by NewContext, until its context
// is done; Done tells when it has stopped. Afterwards Do returns ErrClosed.
// A Runner must be made by New or NewContext: the zero Runner
// returns ErrZero from Do and does nothing else.
type Runner struct {
	mu       sync.Mutex
	a        *allocator.Allocator
	ctx      context.Context
	opts     Options
	trigger  chan struct{}
	done     chan struct{}
	finished chan struct{}
	closed   bool
	cause    error // why the context ended the runner; nil after Close
	// calling is set while the runner's goroutine calls OnResult or
	// OnRun: a Close then does not wait for the goroutine, which would
	// wait for the callback.
	calling atomic.Bool
}

// New starts a Runner around a; the caller must not use a directly
// afterwards. Close stops it. It is NewContext with a context that is
// never done.
func New(a *allocator.Allocator, opts Options) *Runner {
	return NewContext(context.Background(), a, opts)
}

// NewContext starts a Runner around a that stops when ctx is done, as
// if Close had been called: the run under way, if any, ends first. The
// caller must not use a directly afterwards. Close works as well, and
// stops the runner earlier. It panics if a is nil.
func NewContext(ctx context.Context, a *allocator.Allocator, opts Options) *Runner {
	if a == nil {
		panic("runner: New with a nil Allocator")
	}
	if opts.NewTicker == nil {
		opts.NewTicker = TimeTicker
	}
	r := &Runner{
		a:        a,
		ctx:      ctx,
		opts:     opts,
		trigger:  make(chan struct{}, 1),
		done:     make(chan struct{}),
		finished: make(chan struct{}),
	}
	ticker := opts.NewTicker(a.Options().AllocationInterval)
	go r.loop(ticker)
	return r
}

// Do runs fn with exclusive access to the allocator. If fn leaves an
// allocation pending (it added an agent, activated a framework, revived
// offers, ...), the runner schedules a run. It returns fn's error, or
// ErrClosed without calling fn once the runner has stopped.
func (r *Runner) Do(fn func(a *allocator.Allocator) error) error {
	r.mu.Lock()
	if err := r.usable(); err != nil {
		r.mu.Unlock()
		return err
	}
	err := fn(r.a)
	pending := r.a.Pending()
	r.mu.Unlock()
	if pending {
		r.poke()
	}
	return err
}

// usable returns why r cannot be used, or nil; r.mu is held.
func (r *Runner) usable() error {
	switch {
	case r.a == nil:
		return ErrZero
	case r.cause != nil:
		return fmt.Errorf("%w: %w", ErrClosed, r.cause)
	case r.closed:
		return ErrClosed
	case r.ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrClosed, context.Cause(r.ctx))
	}
	return nil
}

func (r *Runner) poke() {
	select {
	case r.trigger <- struct{}{}:
	default: // a run is already pending (or r is the zero Runner)
	}
}

// Pause stops allocation runs until Resume.
func (r *Runner) Pause() { _ = r.Do(func(a *allocator.Allocator) error { a.Pause(); return nil }) }

// Resume lets allocation runs happen again, and runs one if any was
// requested while paused.
func (r *Runner) Resume() {
	_ = r.Do(func(a *allocator.Allocator) error { a.Resume(); return nil })
	r.poke()
}

// Close stops the runner and waits for its goroutine to end. It is safe to
// call more than once, and after the runner's context is done. Called while
// the runner calls OnResult or OnRun (from the callback, or from elsewhere
// at that moment), it stops the runner but does not wait: the goroutine
// ends when the callback returns, and Done tells when.
func (r *Runner) Close() {
	r.mu.Lock()
	if r.a == nil {
		r.mu.Unlock()
		return
	}
	if !r.closed {
		r.closed = true
		close(r.done)
	}
	r.mu.Unlock()
	if r.calling.Load() {
		return
	}
	<-r.finished
}

// closedChan is what Done returns for the zero Runner.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Done returns a channel that is closed once the runner has stopped, after
// Close or once its context is done, and its goroutine has ended.
func (r *Runner) Done() <-chan struct{} {
	if r.finished == nil {
		return closedChan
	}
	return r.finished
}

func (r *Runner) loop(ticker Ticker) {
	defer close(r.finished)
	defer ticker.Stop()
	for {
		var all bool
		select {
		case <-r.done:
			return
		case <-r.ctx.Done():
		case <-ticker.C():
			all = true
		case <-r.trigger:
		}
		r.mu.Lock()
		if r.ctx.Err() != nil && !r.closed {
			r.closed, r.cause = true, context.Cause(r.ctx)
		}
		if r.closed {
			r.mu.Unlock()
			return
		}
		var res allocator.Result
		if all {
			res = r.a.AllocateAll()
		} else {
			res = r.a.Allocate()
		}
		r.calling.Store(true)
		r.mu.Unlock()
		if r.opts.OnResult != nil && (len(res.Offers) > 0 || len(res.InverseOffers) > 0) {
			r.opts.OnResult(res)
		}
		if r.opts.OnRun != nil {
			r.opts.OnRun(res)
		}
		r.calling.Store(false)
	}
}
