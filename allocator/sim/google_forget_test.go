package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// What the reader makes of records of a task that ended longer than
// GoogleOptions.Remember ago: read as a task never seen, its runs
// numbered anew where their IDs would repeat.
func TestReadGoogleForget(t *testing.T) {
	const (
		half = "cpus:16; mem:32768" // requests of 0.5 and 0.25
		day  = 24 * 60 * 60         // the default Remember, in seconds
	)
	run := func(i int, at int64, end int) string { // submitted at at, ran 10 s from at+10
		return gline(i, at, "", gSubmit, "0.5", "0.25") + gline(i, at+10, "", gSchedule) + gline(i, at+20, "", end)
	}
	forever := sim.GoogleOptions{Remember: -1}
	resubmitted := run(0, 0, gFinish) + run(0, 2*day, gEvict) + run(0, 2*day+100, gFinish)
	renumbered := []string{"1-0 0s+10s " + half, "1-0.2 48h0m0s+10s " + half, "1-0.3 48h1m40s+10s " + half}
	beforeStart := run(0, 0, gFinish) + run(0, 2*day, gFinish)
	cases := []googleRule{
		{
			name:  "DuplicateEndWithinRemember", // a day after the end: still known
			text:  run(0, 0, gFinish) + gline(0, 20+day, "1", gFinish),
			tasks: []string{"1-0 0s+10s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1, DuplicateEnds: 1},
		},
		{
			name:  "DuplicateEndPastRemember", // a day and a second: an orphan
			text:  run(0, 0, gFinish) + gline(0, 21+day, "1", gFinish),
			tasks: []string{"1-0 0s+10s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1, Orphans: 1},
		},
		{
			name:  "DuplicateEndForever",
			text:  run(0, 0, gFinish) + gline(0, 21+day, "1", gFinish),
			opts:  forever,
			tasks: []string{"1-0 0s+10s " + half},
			stats: sim.GoogleStats{Lines: 4, Tasks: 1, DuplicateEnds: 1},
		},
		{
			name:  "OtherTasksMoveTime", // the latest timestamp of any task; one that goes back is not noticed
			text:  run(0, 0, gFinish) + gline(1, 2*day, "", gSubmit, "0.5", "0.25") + gline(0, 15, "1", gFinish),
			tasks: []string{"1-0 0s+10s " + half},
			stats: sim.GoogleStats{Lines: 5, Tasks: 1, Orphans: 1, Unfinished: 1},
		},
		{
			name:  "ShortRemember", // each repeat is remembered from its own time
			text:  run(0, 0, gFinish) + gline(0, 30, "1", gFinish) + gline(0, 41, "1", gFinish),
			opts:  sim.GoogleOptions{Remember: 10 * time.Second},
			tasks: []string{"1-0 0s+10s " + half},
			stats: sim.GoogleStats{Lines: 5, Tasks: 1, DuplicateEnds: 1, Orphans: 1},
		},
		{
			name:  "ResubmitPastRemember", // 1-0, then 1-0 and 1-0.2 again: numbered anew
			text:  resubmitted,
			tasks: renumbered,
			stats: sim.GoogleStats{Lines: 9, Tasks: 3, Renumbered: 2},
		},
		{name: "ResubmitForever", text: resubmitted, opts: forever, tasks: renumbered, stats: sim.GoogleStats{Lines: 9, Tasks: 3}},
		{
			name:  "ResubmitPastRememberAfterStart", // the run before the start is not counted
			text:  beforeStart,
			opts:  sim.GoogleOptions{Start: day * time.Second, FixedStart: true},
			tasks: []string{"1-0 24h0m0s+10s " + half},
			stats: sim.GoogleStats{Lines: 6, Tasks: 1, BeforeStart: 1, Start: day * time.Second},
		},
		{
			name:  "ResubmitForeverAfterStart",
			text:  beforeStart,
			opts:  sim.GoogleOptions{Start: day * time.Second, FixedStart: true, Remember: -1},
			tasks: []string{"1-0.2 24h0m0s+10s " + half},
			stats: sim.GoogleStats{Lines: 6, Tasks: 1, BeforeStart: 1, Start: day * time.Second},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.check)
	}

	// A run that ends after the trace is never forgotten: nothing may
	// come after it.
	text := gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, gAfter, "", gFinish) + gline(1, 2*day, "", gSubmit, "0.5") + gline(0, 5, "", gFinish)
	_, _, err := sim.ReadGoogle(strings.NewReader(text), sim.GoogleOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	require.ErrorContains(t, err, "line 4: timestamp 5000000 goes back")
}
