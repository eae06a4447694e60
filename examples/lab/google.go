package main

import (
	"fmt"
	"io"
	"iter"
	"math"
	"time"

	"github.com/allot-go/allot/allocator/sim"
)

// readGoogle streams the tasks of the parts of the Google trace that
// -google names into the workload (read once for the stats, then by each
// run as its clock goes: a month of trace is not held), reads the machine
// events of -machines into its cluster, and says what they left out.
func readGoogle(w io.Writer, cfg config, work *sim.Workload) error {
	opts := sim.GoogleOptions{Start: cfg.start.at, FixedStart: cfg.start.fixed}
	stream, err := sim.StreamGoogleFiles(cfg.google, opts)
	if err != nil {
		return err
	}
	s, err := stream.Stats()
	if err != nil {
		return err // names the file and the line
	}
	name := cfg.google
	if s.Parts > 1 {
		name += fmt.Sprintf(" (%d parts)", s.Parts)
	}
	fmt.Fprintf(w, "%s: %d lines, %d tasks; left out: %d unfinished, %d never ran, %d without request, %d ends without submit, %d before the start",
		name, s.Lines, s.Tasks, s.Unfinished, s.NeverRan, s.NoRequest, s.Orphans, s.BeforeStart)
	fmt.Fprintf(w, "; records ignored: %d duplicate submits, %d duplicate schedules, %d duplicate ends, %d without a run, %d after the trace",
		s.DuplicateSubmits, s.DuplicateSchedules, s.DuplicateEnds, s.Strays, s.AfterTrace)
	fmt.Fprintf(w, "; %d renumbered, submitted again over a day after their end; time zero at %s of the trace\n\n", s.Renumbered, s.Start)
	work.Stream = stream.Tasks
	if cfg.machines == "" {
		return nil
	}
	f, err := sim.OpenGoogleFile(cfg.machines)
	if err != nil {
		return err
	}
	defer f.Close()
	// The cluster keeps the tasks' time.
	cluster, m, err := sim.ReadGoogleMachines(f, sim.GoogleOptions{Start: s.Start, FixedStart: true})
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.machines, err)
	}
	fmt.Fprintf(w, "%s: %d lines, %d machines as agents; left out: %d gone before the start, %d without capacity; as agent failures: %d removals, %d late additions; ignored: %d capacity changes, %d repeats, %d after the trace\n\n",
		cfg.machines, m.Lines, m.Machines, m.Gone, m.NoCapacity, m.Removals, m.Late, m.Resized, m.Duplicates, m.AfterTrace)
	work.Agents, work.Events = cluster.Agents, cluster.Events
	return nil
}

// lastInterval returns the time of the run's last interval: the run
// makes opts.Intervals intervals, or at most sim.DefaultMaxIntervals until
// it is done. It returns false when the run outlasts any submission.
func lastInterval(opts sim.RunOptions) (time.Duration, bool) {
	n := opts.Intervals
	if n == 0 {
		n = sim.DefaultMaxIntervals
	}
	if opts.Interval > time.Duration(math.MaxInt64)/time.Duration(n) {
		return 0, false
	}
	return time.Duration(n-1) * opts.Interval, true
}

// warnLate says when tasks are submitted after the run's last interval,
// where they would never run.
func warnLate(w io.Writer, tasks []sim.Task, opts sim.RunOptions, google bool) {
	last, ok := lastInterval(opts)
	if !ok {
		return
	}
	late := 0
	for _, t := range tasks {
		if t.Submit > last {
			late++
		}
	}
	printLate(w, late, len(tasks), last, google)
}

func printLate(w io.Writer, late, n int, last time.Duration, google bool) {
	if late == 0 {
		return
	}
	hint := ""
	if google {
		hint = ", -start moves its time zero"
	}
	fmt.Fprintf(w, "warning: %d of %d tasks are submitted after the run's last interval (at %s) and never run: -intervals and -interval make the run longer%s\n\n",
		late, n, last, hint)
}

// lateStream counts the late tasks of a workload's stream as its first
// reading goes by (Compare's check of the tasks, before the runs), so
// that the trace is not read once more for the warning, which is then
// written after the runs: the same bytes, as nothing is written between.
type lateStream struct {
	stream        func() iter.Seq2[sim.Task, error]
	last          time.Duration
	n, late       int
	read, counted bool
}

// tasks is the workload's stream.
func (l *lateStream) tasks() iter.Seq2[sim.Task, error] {
	inner := l.stream()
	if l.read {
		return inner
	}
	l.read = true
	return func(yield func(sim.Task, error) bool) {
		n, late := 0, 0
		for t, err := range inner {
			if err == nil {
				n++
				if t.Submit > l.last {
					late++
				}
			}
			if !yield(t, err) {
				return
			}
		}
		l.n, l.late, l.counted = n, late, true
	}
}

// warn writes the warning, reading the stream for it if no reading went
// through.
func (l *lateStream) warn(w io.Writer) error {
	if !l.counted {
		l.read = false
		for _, err := range l.tasks() {
			if err != nil {
				return err
			}
		}
	}
	printLate(w, l.late, l.n, l.last, true)
	return nil
}
