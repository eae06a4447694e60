package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/sim"
)

// Machine event types.
const (
	gmAdd = iota
	gmRemove
	gmUpdate
)

// gmLine writes a line of the machine-events table: at in seconds (gAfter for
// 2^63-1), the machine, the event type, and the CPUs and memory if given,
// on platform p.
func gmLine(at int64, machine, kind int, capacity ...string) string {
	ts := fmt.Sprint(at * 1_000_000)
	if at == gAfter {
		ts = "9223372036854775807"
	}
	capacity = append(capacity, "", "")
	return fmt.Sprintf("%s,%d,%d,p,%s,%s\n", ts, machine, kind, capacity[0], capacity[1])
}

// gAgents writes agent groups as "name resources".
func gAgents(groups []sim.AgentGroup) []string {
	out := []string{}
	for _, g := range groups {
		out = append(out, fmt.Sprintf("%s %s", g.Name, g.Resources))
	}
	return out
}

// gEvents writes events as "agent at+for".
func gEvents(es []sim.Event) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s %s+%s", e.Agent, e.At, e.For))
	}
	return out
}

// One rule of the machine reader a case.
func TestReadGoogleMachines(t *testing.T) {
	const half = "cpus:16;mem:65536" // capacities of 0.5 and 0.5
	at1000 := sim.GoogleOptions{Start: 1000 * time.Second, FixedStart: true}
	cases := []struct {
		name   string
		text   string
		opts   sim.GoogleOptions
		agents []string
		events []string
		stats  sim.GoogleMachineStats
	}{
		{
			name:   "Up",
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(0, 7, gmAdd, "1", "0.25"),
			agents: []string{"m5 " + half, "m7 cpus:32;mem:32768"},
			events: []string{},
			stats:  sim.GoogleMachineStats{Lines: 2, Machines: 2},
		},
		{
			name:   "RemovedAndBack",
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(100, 5, gmRemove) + gmLine(300, 5, gmAdd, "0.5", "0.5"),
			agents: []string{"m5 " + half},
			events: []string{"m5-1 1m40s+3m20s"},
			stats:  sim.GoogleMachineStats{Lines: 3, Machines: 1, Removals: 1},
		},
		{
			name:   "RemovedForGood",
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(100, 5, gmRemove),
			agents: []string{"m5 " + half},
			events: []string{"m5-1 1m40s+0s"},
			stats:  sim.GoogleMachineStats{Lines: 2, Machines: 1, Removals: 1},
		},
		{
			name:   "RemovedAndBackAtOnce", // a microsecond down: it loses its tasks
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(100, 5, gmRemove) + gmLine(100, 5, gmAdd, "0.5", "0.5"),
			agents: []string{"m5 " + half},
			events: []string{"m5-1 1m40s+1µs"},
			stats:  sim.GoogleMachineStats{Lines: 3, Machines: 1, Removals: 1},
		},
		{
			name:   "Late", // failed from time zero to its addition
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(500, 6, gmAdd, "0.25", "0.5"),
			agents: []string{"m5 " + half, "m6 cpus:8;mem:65536"},
			events: []string{"m6-1 0s+8m20s"},
			stats:  sim.GoogleMachineStats{Lines: 2, Machines: 2, Late: 1},
		},
		{
			name:   "FixedStart",
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(500, 5, gmRemove) + gmLine(0, 6, gmAdd, "0.5", "0.5") + gmLine(1500, 6, gmRemove) + gmLine(1000, 7, gmAdd, "0.5", "0.5"),
			opts:   at1000,
			agents: []string{"m6 " + half, "m7 " + half},
			events: []string{"m6-1 8m20s+0s"},
			stats:  sim.GoogleMachineStats{Lines: 5, Machines: 2, Gone: 1, Removals: 1},
		},
		{
			name:   "FirstEvent", // without FixedStart, the table's first event
			text:   gmLine(400, 5, gmAdd, "0.5", "0.5") + gmLine(500, 5, gmRemove),
			agents: []string{"m5 " + half},
			events: []string{"m5-1 1m40s+0s"},
			stats:  sim.GoogleMachineStats{Lines: 2, Machines: 1, Removals: 1},
		},
		{
			name:   "UpdateBeforeStart",
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(500, 5, gmUpdate, "0.25", ""),
			opts:   at1000,
			agents: []string{"m5 cpus:8;mem:65536"},
			events: []string{},
			stats:  sim.GoogleMachineStats{Lines: 2, Machines: 1},
		},
		{
			name:   "UpdateAfterStart", // ignored
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(1500, 5, gmUpdate, "0.25", "") + gmLine(1600, 5, gmUpdate, "0.5", "0.5"),
			opts:   at1000,
			agents: []string{"m5 " + half},
			events: []string{},
			stats:  sim.GoogleMachineStats{Lines: 3, Machines: 1, Resized: 1},
		},
		{
			name:   "BackResized", // back with its first capacity
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(100, 5, gmRemove) + gmLine(200, 5, gmAdd, "1", "1"),
			agents: []string{"m5 " + half},
			events: []string{"m5-1 1m40s+1m40s"},
			stats:  sim.GoogleMachineStats{Lines: 3, Machines: 1, Removals: 1, Resized: 1},
		},
		{
			name:   "CapacityLater", // unknown when added: the first record that gives it
			text:   gmLine(0, 5, gmAdd, "", "0.5") + gmLine(100, 5, gmUpdate, "0.5", "") + gmLine(200, 5, gmUpdate, "0.25", ""),
			agents: []string{"m5 " + half},
			events: []string{},
			stats:  sim.GoogleMachineStats{Lines: 3, Machines: 1, Resized: 1},
		},
		{
			name:   "NoCapacity",
			text:   gmLine(0, 5, gmAdd, "", "0.5") + gmLine(0, 6, gmAdd, "0", "0") + gmLine(0, 7, gmAdd, "0", "0.5"),
			agents: []string{"m7 mem:65536"},
			events: []string{},
			stats:  sim.GoogleMachineStats{Lines: 3, Machines: 1, NoCapacity: 2},
		},
		{
			name:   "Duplicates",
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(0, 5, gmAdd) + gmLine(100, 5, gmRemove) + gmLine(100, 5, gmRemove) + gmLine(100, 6, gmRemove),
			agents: []string{"m5 " + half},
			events: []string{"m5-1 1m40s+0s"},
			stats:  sim.GoogleMachineStats{Lines: 5, Machines: 1, Removals: 1, Duplicates: 3, Gone: 1},
		},
		{
			name:   "AfterTrace", // a removal after the trace: up to the end
			text:   gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(gAfter, 5, gmRemove) + gmLine(gAfter, 6, gmAdd, "0.5", "0.5"),
			agents: []string{"m5 " + half},
			events: []string{},
			stats:  sim.GoogleMachineStats{Lines: 3, Machines: 1, AfterTrace: 2},
		},
		{
			name:   "Scaled",
			text:   gmLine(0, 5, gmAdd, "0.5", "0.0000001"),
			opts:   sim.GoogleOptions{CPUs: 8, Memory: 1000},
			agents: []string{"m5 cpus:4;mem:0.001"},
			events: []string{},
			stats:  sim.GoogleMachineStats{Lines: 1, Machines: 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, stats, err := sim.ReadGoogleMachines(strings.NewReader(tc.text), tc.opts)
			require.NoError(t, err)
			require.Equal(t, tc.agents, gAgents(c.Agents))
			require.Equal(t, tc.events, gEvents(c.Events))
			require.Equal(t, tc.stats, stats)
			for _, g := range c.Agents {
				require.Equal(t, 1, g.Count)
				require.Equal(t, map[string]string{"platform": "p"}, g.Attributes)
			}
		})
	}
}

func TestReadGoogleMachinesErrors(t *testing.T) {
	ok := "0,5,0,p,0.5,0.5"
	field := func(i int, v string) string {
		f := strings.Split(ok, ",")
		f[i] = v
		return ok + "\n" + strings.Join(f, ",") + "\n"
	}
	cases := []struct{ name, text, msg string }{
		{"Fields", "0,5,0\n", "line 1: wrong number of fields"},
		{"Timestamp", field(0, "x"), `line 2: timestamp "x": want microseconds`},
		{"TimestampFar", field(0, "9000000000000000000"), "line 2: timestamp \"9000000000000000000\": more than"},
		{"Machine", field(1, ""), `line 2: machine ID "": missing`},
		{"Type", field(2, "3"), `line 2: event type "3": want a whole number up to 2`},
		{"Platform", field(3, "a\x01"), `line 2: platform ID "a\x01": want no control characters`},
		{"CPUs", field(4, "2"), `line 2: CPUs "2": want a normalised capacity from 0 to 1`},
		{"Memory", field(5, "-1"), `line 2: memory "-1": want a normalised capacity from 0 to 1`},
		{"BackInTime", "10,5,0,p,0.5,0.5\n5,5,1,,,\n", "line 2: timestamp 5 goes back: machine 5 had an event at 10"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := sim.ReadGoogleMachines(strings.NewReader(tc.text), sim.GoogleOptions{})
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
			require.ErrorContains(t, err, tc.msg)
		})
	}
	_, _, err := sim.ReadGoogleMachines(strings.NewReader(ok), sim.GoogleOptions{Start: -time.Second, FixedStart: true})
	require.ErrorIs(t, err, sim.ErrInvalidTrace)
	require.ErrorContains(t, err, "start -1s: want 0 to")
}

// The cluster of the machine events runs: a machine removed takes its
// task with it, and the task runs again on a machine added late.
func TestGoogleMachinesRun(t *testing.T) {
	machines := gmLine(0, 1, gmAdd, "0.5", "0.5") + gmLine(30, 1, gmRemove) + gmLine(60, 2, gmAdd, "0.5", "0.5")
	tasks := gline(0, 0, "", gSubmit, "0.5", "0.25") + gline(0, 10, "", gSchedule) + gline(0, 110, "", gFinish)
	ts, stats, err := sim.ReadGoogle(strings.NewReader(tasks), sim.GoogleOptions{})
	require.NoError(t, err)
	c, _, err := sim.ReadGoogleMachines(strings.NewReader(machines), sim.GoogleOptions{Start: stats.Start, FixedStart: true})
	require.NoError(t, err)
	w := sim.Workload{Agents: c.Agents, Events: c.Events, Tasks: ts}
	res, err := sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, sim.StopDone, res.Stopped)
	require.Equal(t, 1, res.Summary.Lost)
	require.Equal(t, 2, res.Summary.Launched)
	require.Equal(t, 1, res.Summary.Finished)
	require.Equal(t, 161, res.Summary.Intervals) // lost at 30 s, launched again at 60 s for 100 s
}

// Bad machine events give an error naming the line, never a panic; what
// reads is a cluster that runs.
func FuzzReadGoogleMachines(f *testing.F) {
	f.Add(gmLine(0, 5, gmAdd, "0.5", "0.5") + gmLine(100, 5, gmRemove) + gmLine(300, 5, gmAdd, "0.5", "0.5") + gmLine(500, 6, gmAdd, "1", "1"))
	f.Add(gmLine(0, 5, gmAdd, "", "0.5") + gmLine(0, 5, gmAdd) + gmLine(100, 5, gmRemove) + gmLine(100, 5, gmRemove) + gmLine(gAfter, 6, gmAdd, "1", "1"))
	f.Add("0,5,0,p,0.5,0.5\n5,5,1,,,\n3,5,1,,,\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		c, stats, err := sim.ReadGoogleMachines(strings.NewReader(text), sim.GoogleOptions{})
		if err != nil {
			require.ErrorIs(t, err, sim.ErrInvalidTrace)
			require.Contains(t, err.Error(), "line ")
			return
		}
		require.Equal(t, stats.Machines, len(c.Agents))
		require.Equal(t, stats.Removals+stats.Late, len(c.Events))
		if len(c.Agents) == 0 {
			return
		}
		w := sim.Workload{Agents: c.Agents, Events: c.Events}
		_, err = sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{Intervals: 1})
		require.NoError(t, err)
	})
}
