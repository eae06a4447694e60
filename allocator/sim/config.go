package sim

import (
	"fmt"
	"io"
	"time"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/sorter"
)

// Config is one configuration of the allocator to run a workload with.
type Config struct {
	// Name labels the configuration in tables, files and charts.
	Name string
	// Options are the allocator's. The lab sets Clock (its manual clock)
	// and Seed (the run's), and AllocationInterval when it is zero (the
	// run's interval); the rest is the configuration's: the sorters,
	// ChargeBeyondAllowance, OfferShare, MinAllocatable, ...
	Options allocator.Options
	// RoleSorterWithClock, when set, makes the role sorter from the
	// simulation's clock, for sorters that read time (Usage does); it
	// takes the place of Options.RoleSorter.
	RoleSorterWithClock func(clock func() time.Time) (sorter.Factory, error)
	// StateDemand makes each framework state what it waits for before
	// every allocation run (Allocator.UpdateDemand): per role, the
	// pending tasks of its backlog grouped by resources. Reclaim
	// (Options.Reclaim) makes room only for stated demand, and offers are
	// then sized to the tasks stated. Off, frameworks state nothing and
	// are offered as in Mesos.
	StateDemand bool
	// PreemptDelay is how many intervals the simulated host takes to end
	// a task an allocation run chose to end (Result.Preemptions): 0 ends
	// it right after that run, before the next interval; n ends it at
	// the start of the n-th interval after, before that interval's run.
	// A choice withdrawn before then (Result.Withdrawn) is not ended. A
	// delay of Options.ReclaimTimeout or more lets choices lapse first.
	PreemptDelay int
}

// Usage returns a RoleSorterWithClock that makes sorter.Usage role sorters
// with the given half-life.
func Usage(halfLife time.Duration) func(clock func() time.Time) (sorter.Factory, error) {
	return func(clock func() time.Time) (sorter.Factory, error) {
		return sorter.UsageFactory(sorter.UsageOptions{HalfLife: halfLife, Clock: clock})
	}
}

// options returns the allocator options of a run.
func (c Config) options(clock func() time.Time, seed uint64, interval time.Duration) (allocator.Options, error) {
	opts := c.Options
	opts.Clock = clock
	opts.Seed = int64(seed)
	if opts.AllocationInterval == 0 {
		opts.AllocationInterval = interval // filters last at least one of the lab's intervals
	}
	if c.RoleSorterWithClock != nil {
		f, err := c.RoleSorterWithClock(clock)
		if err != nil {
			return opts, fmt.Errorf("%w: %q: %w", ErrInvalidConfig, c.Name, err)
		}
		opts.RoleSorter = f
	}
	return opts, nil
}

// RunOptions say how long and how finely a workload runs.
type RunOptions struct {
	// Seed draws the generators' tasks and seeds the allocator.
	Seed uint64
	// Interval is the time between two allocation runs (0 means
	// allocator.DefaultAllocationInterval, one second).
	Interval time.Duration
	// Intervals is how many allocation runs to make, the first at time
	// zero. Zero runs until every task has ended and no event is left,
	// until the run stalls (tasks wait that nothing can run, and nothing
	// is left to happen), or until MaxIntervals.
	Intervals int
	// MaxIntervals bounds a run of Intervals zero (0 means
	// DefaultMaxIntervals).
	MaxIntervals int
	// Stopwatch, when set, reads elapsed time; the lab reads it around
	// every allocation run to measure its duration. Without it no
	// duration is measured: the package reads no clock of its own.
	Stopwatch func() time.Duration
	// Start is the simulated clock's time zero (the zero Time means
	// 2026-01-01 00:00 UTC).
	Start time.Time
	// SampleEvery, n above one, keeps one interval's Sample in n in
	// Result.Samples, those of intervals 0, n, 2n, ... (0 or 1: every
	// interval's), so that a long run need not hold them all. The
	// Summary is of every interval whatever is kept.
	SampleEvery int
	// MaxSamples, above zero, bounds Result.Samples: a run that would
	// keep more keeps every other one it kept and from then on one
	// interval in twice as many, so that a run of any length keeps at
	// most MaxSamples, evenly spaced (Result.SampleStride apart).
	MaxSamples int
	// SamplesCSV, when set, is written every interval's Sample as the run
	// makes it, whatever is kept, in Comparison.WriteSamplesCSV's format:
	// the header, then a line per interval. Compare writes the header once
	// and each configuration's lines after the previous one's. A run that
	// cannot write it fails with the writer's error.
	SamplesCSV io.Writer
	// OnSample, when set, is called with every interval's Sample as the
	// run makes it, whatever is kept; an error stops the run. The
	// Sample's slices are reused for the next interval when it is not
	// kept: copy what is to outlive the call.
	OnSample func(config string, s Sample) error
	// ExactWaits is how many waits of a role Result.Waits keeps, each
	// exactly (0 means DefaultExactWaits; negative, every one): a role
	// that launches more keeps a WaitHistogram of them instead, of
	// relative error below 1/256, so that a run of a long trace need not
	// hold a wait per task, and its Summary's percentiles are read from
	// it.
	ExactWaits int
}

// DefaultMaxIntervals bounds runs that go until the workload is done.
const DefaultMaxIntervals = 1_000_000

// defaultStart is where simulated time starts.
var defaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (o RunOptions) resolved() (RunOptions, error) {
	switch {
	case o.Interval < 0:
		return o, fmt.Errorf("%w: interval %s is negative", ErrInvalidOptions, o.Interval)
	case o.Intervals < 0 || o.MaxIntervals < 0:
		return o, fmt.Errorf("%w: intervals %d, max intervals %d: want zero or more", ErrInvalidOptions, o.Intervals, o.MaxIntervals)
	case o.SampleEvery < 0 || o.MaxSamples < 0:
		return o, fmt.Errorf("%w: sample every %d, max samples %d: want zero or more", ErrInvalidOptions, o.SampleEvery, o.MaxSamples)
	}
	if o.Interval == 0 {
		o.Interval = allocator.DefaultAllocationInterval
	}
	if o.MaxIntervals == 0 {
		o.MaxIntervals = DefaultMaxIntervals
	}
	if o.ExactWaits == 0 {
		o.ExactWaits = DefaultExactWaits
	}
	limit := o.Intervals
	if limit == 0 {
		limit = o.MaxIntervals
	}
	if o.Interval > maxTime/time.Duration(limit) {
		return o, fmt.Errorf("%w: %d intervals of %s last more than %s", ErrInvalidOptions, limit, o.Interval, maxTime)
	}
	if o.Start.IsZero() {
		o.Start = defaultStart
	}
	return o, nil
}
