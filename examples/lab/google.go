package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/allot-go/allot/allocator/sim"
)

// readGoogle reads the parts of the Google trace that -google names into
// the workload's tasks, and the machine events of -machines into its
// cluster, and says what they left out.
func readGoogle(w io.Writer, cfg config, work *sim.Workload) error {
	opts := sim.GoogleOptions{Start: cfg.start.at, FixedStart: cfg.start.fixed}
	tasks, s, err := sim.ReadGoogleFiles(cfg.google, opts)
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
	work.Tasks = tasks
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

// warnLate says when tasks are submitted after the run's last interval,
// where they would never run: the run makes opts.Intervals intervals, or
// at most sim.DefaultMaxIntervals until it is done.
func warnLate(w io.Writer, tasks []sim.Task, opts sim.RunOptions, google bool) {
	n := opts.Intervals
	if n == 0 {
		n = sim.DefaultMaxIntervals
	}
	if opts.Interval > time.Duration(math.MaxInt64)/time.Duration(n) {
		return // the run outlasts any submission
	}
	last := time.Duration(n-1) * opts.Interval
	late := 0
	for _, t := range tasks {
		if t.Submit > last {
			late++
		}
	}
	if late == 0 {
		return
	}
	hint := ""
	if google {
		hint = ", -start moves its time zero"
	}
	fmt.Fprintf(w, "warning: %d of %d tasks are submitted after the run's last interval (at %s) and never run: -intervals and -interval make the run longer%s\n\n",
		late, len(tasks), last, hint)
}
