package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/resources"
)

func qty(text string) resources.Quantities { return resources.MustParseQuantities(text) }

// tasks returns n tasks of framework "f" named t1...tn, submitted at
// submit, with resources text and duration d.
func tasks(n int, submit time.Duration, text string, d time.Duration) []sim.Task {
	out := make([]sim.Task, n)
	for i := range out {
		out[i] = sim.Task{Framework: "f", Role: "r", ID: "t" + string(rune('1'+i)), Submit: submit, Resources: qty(text), Duration: d}
	}
	return out
}

func run(t *testing.T, w sim.Workload, opts sim.RunOptions) *sim.Result {
	t.Helper()
	res, err := sim.Run(w, sim.Config{Name: "drf"}, opts)
	require.NoError(t, err)
	return res
}

// Six tasks of 1 CPU and 3 s on an agent of 4 CPUs: four run at once at
// time 0, the two others when those end at 3 s, and the last end at 6 s.
// Every figure follows from that.
func TestRunByHand(t *testing.T) {
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:4;mem:4096"}},
		Tasks:  tasks(6, 0, "cpus:1;mem:512", 3*time.Second),
	}
	res := run(t, w, sim.RunOptions{Seed: 1})
	require.Equal(t, sim.StopDone, res.Stopped)
	require.Equal(t, []string{"cpus", "mem"}, res.Resources)
	require.Equal(t, []string{"r"}, res.Roles)
	require.Len(t, res.Samples, 7) // 0 s to 6 s

	type fig struct {
		cpus, mem, share           float64
		running, finished, pending int
		offers                     int
	}
	want := []fig{
		{1, 0.5, 1, 4, 0, 2, 1},
		{1, 0.5, 1, 4, 0, 2, 0}, // the rest of the agent is refused for 5 s
		{1, 0.5, 1, 4, 0, 2, 0},
		{0.5, 0.25, 0.5, 2, 4, 0, 1}, // freed, offered again: a larger offer than the refused rest
		{0.5, 0.25, 0.5, 2, 0, 0, 0},
		{0.5, 0.25, 0.5, 2, 0, 0, 0},
		{0, 0, 0, 0, 2, 0, 0},
	}
	for i, s := range res.Samples {
		require.Equal(t, time.Duration(i)*time.Second, s.At)
		got := fig{s.Utilisation[0], s.Utilisation[1], s.Share[0], s.Running, s.Finished, s.Pending[0], s.Offers}
		require.Equal(t, want[i], got, "sample at %s", s.At)
		require.Equal(t, s.Share, s.WeightedShare)
		require.Equal(t, 1.0, s.Jain) // one role: fair by definition
		require.Zero(t, s.Declined)
	}
	sum := res.Summary
	require.InDelta(t, 4.5/7, sum.Utilisation[0], 1e-15)
	require.InDelta(t, 2.25/7, sum.Utilisation[1], 1e-15)
	require.Equal(t, sim.WaitStats{Tasks: 6, Mean: time.Second, P50: 0, P90: 3 * time.Second, P99: 3 * time.Second, Max: 3 * time.Second}, sum.Waits[0])
	require.Equal(t, []time.Duration{0, 0, 0, 0, 3 * time.Second, 3 * time.Second}, res.Waits[0])
	require.Equal(t, 6, sum.Submitted)
	require.Equal(t, 6, sum.Launched)
	require.Equal(t, 6, sum.Finished)
	require.Zero(t, sum.Lost+sum.Unfinished+sum.Contended)
	require.Equal(t, 2, sum.Offers)
	require.Equal(t, 1.0, sum.Jain)
	require.Equal(t, sim.RunTimeStats{}, sum.RunTime)
}

// Weights divide shares: a backlog of two roles of weights 3 and 1 on 8
// CPUs runs 6 tasks and 2, equal weighted shares. A quota caps a third
// role at 2 CPUs whatever its backlog, and guarantees them.
func TestRunWeightsAndQuota(t *testing.T) {
	backlog := func(role string) sim.Generator {
		return sim.Generator{Framework: role, Role: role, Prefix: role, Count: 20, Arrival: sim.AllAtOnce{},
			Size: sim.FixedSize("cpus:1;mem:128"), Duration: sim.Fixed(3600)}
	}
	w := sim.Workload{
		Agents:     []sim.AgentGroup{{Name: "a", Count: 8, Resources: "cpus:1;mem:1024"}},
		Roles:      []sim.Role{{Name: "gold", Weight: 3}, {Name: "silver"}},
		Generators: []sim.Generator{backlog("gold"), backlog("silver")},
	}
	res := run(t, w, sim.RunOptions{Seed: 1, Intervals: 3})
	last := res.Samples[2]
	require.Equal(t, []string{"gold", "silver"}, res.Roles)
	require.Equal(t, []float64{0.75, 0.25}, last.Share)
	require.Equal(t, []float64{0.25, 0.25}, last.WeightedShare)
	require.Equal(t, 2, last.Contended)
	require.Equal(t, 1.0, last.Jain)

	w.Roles = append(w.Roles, sim.Role{Name: "capped", Quota: allocator.MustParseQuota("cpus:2;mem:2048")})
	w.Generators = append(w.Generators, backlog("capped"))
	res = run(t, w, sim.RunOptions{Seed: 1, Intervals: 3})
	last = res.Samples[2]
	require.Equal(t, []string{"capped", "gold", "silver"}, res.Roles)
	require.Equal(t, 0.25, last.Share[0]) // its guarantee and limit: 2 of 8 CPUs
	require.InDelta(t, 0.75, last.Share[1]+last.Share[2], 1e-15)
	require.Equal(t, []int{18, 20 - int(last.Share[1]*8), 20 - int(last.Share[2]*8)}, last.Pending)
}

// A failed agent takes its tasks: they are submitted again, wait for the
// agent to come back, and run in full.
func TestRunAgentFailure(t *testing.T) {
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 2, Resources: "cpus:2;mem:2048"}},
		Tasks:  tasks(4, 0, "cpus:1;mem:1024", 10*time.Second),
		Events: []sim.Event{{At: 2 * time.Second, Kind: sim.AgentFailure, Agent: "a-1", For: 3 * time.Second}},
	}
	res := run(t, w, sim.RunOptions{Seed: 1})
	require.Equal(t, sim.StopDone, res.Stopped)
	require.Len(t, res.Samples, 16) // the lost tasks run from 5 s to 15 s
	sum := res.Summary
	require.Equal(t, 2, sum.Lost)
	require.Equal(t, 6, sum.Submitted) // 4, and the 2 lost again
	require.Equal(t, 6, sum.Launched)
	require.Equal(t, 4, sum.Finished)
	require.Equal(t, []time.Duration{0, 0, 0, 0, 3 * time.Second, 3 * time.Second}, res.Waits[0])
	for _, s := range res.Samples[2:5] { // a-1 is out: the cluster is a-2, full
		require.Equal(t, []float64{1, 1}, s.Utilisation, "at %s", s.At)
		require.Equal(t, 2, s.Running)
		require.Equal(t, 2, s.Pending[0])
	}
	require.Equal(t, []float64{1, 1}, res.Samples[5].Utilisation)
	require.Equal(t, 4, res.Samples[5].Running)
	require.Equal(t, 2, res.Samples[10].Finished)
	require.Equal(t, []float64{0.5, 0.5}, res.Samples[10].Utilisation)
}

// A maintenance window: announced at 10 s for 15 s to 35 s. A task
// submitted at 12 s is not placed on the agent ahead of its window; the
// tasks still there at 15 s are killed and run elsewhere; during the
// window the agent is out of the cluster.
func TestRunMaintenance(t *testing.T) {
	w := sim.Workload{
		Agents: []sim.AgentGroup{
			{Name: "a", Count: 1, Resources: "cpus:4;mem:4096"},
			{Name: "b", Count: 1, Resources: "cpus:4;mem:4096"},
		},
		Tasks: append(tasks(2, 0, "cpus:1;mem:1024", 100*time.Second),
			sim.Task{Framework: "f", Role: "r", ID: "late", Submit: 12 * time.Second, Resources: qty("cpus:1;mem:1024"), Duration: 100 * time.Second}),
		Events: []sim.Event{{At: 10 * time.Second, Kind: sim.AgentMaintenance, Agent: "a-1", Notice: 5 * time.Second, For: 20 * time.Second}},
	}
	res := run(t, w, sim.RunOptions{Seed: 1, Intervals: 40})
	require.Equal(t, sim.StopIntervals, res.Stopped)
	at := func(sec int) sim.Sample { return res.Samples[sec] }
	require.Equal(t, []float64{0.25, 0.25}, at(0).Utilisation) // both on a-1, first by id
	require.Equal(t, 1, at(12).Offers-at(12).Declined)         // a-1's offer declined, b-1's taken
	require.Equal(t, 1, at(12).Declined)
	require.Equal(t, []float64{0.375, 0.375}, at(12).Utilisation)
	// At 15 s a-1 is out and its two tasks wait: b-1's rest is refused
	// until 17 s since the launch at 12 s (reviving keeps filters); the
	// batch at 17 s, not the first since, no longer sees the filter.
	require.Equal(t, []float64{0.25, 0.25}, at(15).Utilisation)
	require.Equal(t, 1, at(15).Running)
	require.Equal(t, 2, at(16).Pending[0])
	require.Equal(t, []float64{0.75, 0.75}, at(17).Utilisation)
	require.Equal(t, 3, at(17).Running)
	require.Equal(t, []float64{0.375, 0.375}, at(35).Utilisation) // a-1 back
	sum := res.Summary
	require.Equal(t, 2, sum.Lost)
	require.Equal(t, 5, sum.Launched)
	require.Equal(t, 3, sum.Unfinished)
	require.Equal(t, []time.Duration{0, 0, 0, 2 * time.Second, 2 * time.Second}, res.Waits[0])
}

func TestRunStops(t *testing.T) {
	agent := []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:4;mem:4096"}}
	t.Run("Stalled", func(t *testing.T) {
		w := sim.Workload{Agents: agent, Tasks: append(tasks(1, 0, "cpus:1", time.Second),
			sim.Task{Framework: "f", ID: "huge", Submit: 0, Resources: qty("cpus:16"), Duration: time.Second})}
		res := run(t, w, sim.RunOptions{Seed: 1})
		require.Equal(t, sim.StopStalled, res.Stopped)
		require.Equal(t, 1, res.Summary.Unfinished)
		require.Equal(t, 1, res.Summary.Finished)
		// The small task ends at 1 s; then seven intervals without a
		// change (5 s of refusal, one for the framework, one more), the
		// last at 8 s.
		require.Len(t, res.Samples, 9)
	})
	t.Run("Limit", func(t *testing.T) {
		w := sim.Workload{Agents: agent, Tasks: tasks(1, 0, "cpus:1", time.Hour)}
		res := run(t, w, sim.RunOptions{Seed: 1, MaxIntervals: 3})
		require.Equal(t, sim.StopLimit, res.Stopped)
		require.Len(t, res.Samples, 3)
		require.Equal(t, 1, res.Summary.Unfinished)
	})
	t.Run("Interval", func(t *testing.T) {
		w := sim.Workload{Agents: agent, Tasks: tasks(2, 5*time.Second, "cpus:1", 20*time.Second)}
		res := run(t, w, sim.RunOptions{Seed: 1, Interval: 10 * time.Second})
		require.Equal(t, sim.StopDone, res.Stopped)
		require.Len(t, res.Samples, 4) // seen at 10 s, ended at 30 s
		require.Equal(t, []time.Duration{5 * time.Second, 5 * time.Second}, res.Waits[0])
		require.Equal(t, 30*time.Second, res.Samples[3].At)
	})
}

// The stopwatch is read around every allocation run and nowhere else.
func TestRunStopwatch(t *testing.T) {
	var reads int
	watch := func() time.Duration { reads++; return time.Duration(reads*reads) * time.Millisecond }
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:1"}}, Tasks: tasks(1, 0, "cpus:1", time.Second)}
	res := run(t, w, sim.RunOptions{Seed: 1, Stopwatch: watch})
	require.Len(t, res.Samples, 2)
	require.Equal(t, 4, reads)
	require.Equal(t, 3*time.Millisecond, res.Samples[0].RunTime) // 4 - 1
	require.Equal(t, 7*time.Millisecond, res.Samples[1].RunTime) // 16 - 9
	require.Equal(t, sim.RunTimeStats{Total: 10 * time.Millisecond, Mean: 5 * time.Millisecond, Max: 7 * time.Millisecond}, res.Summary.RunTime)
}

func TestRunOptionsErrors(t *testing.T) {
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:1"}}}
	for _, tc := range []struct {
		opts sim.RunOptions
		msg  string
	}{
		{sim.RunOptions{Interval: -time.Second}, "interval -1s is negative"},
		{sim.RunOptions{Intervals: -1}, "intervals -1"},
		{sim.RunOptions{Intervals: 10, Interval: 100 * time.Hour * 24 * 365}, "last more than"},
	} {
		_, err := sim.Run(w, sim.Config{Name: "x"}, tc.opts)
		require.ErrorIs(t, err, sim.ErrInvalidOptions)
		require.ErrorContains(t, err, tc.msg)
	}
	_, err := sim.Run(w, sim.Config{}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidConfig)
	_, err = sim.Run(w, sim.Config{Name: "bad", RoleSorterWithClock: sim.Usage(-time.Second)}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidConfig)
	require.ErrorContains(t, err, "half-life -1s is negative")
	_, err = sim.Run(w, sim.Config{Name: "bad", Options: allocator.Options{AllocationInterval: -1}}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidConfig)
}

// A run stalls only after intervals without any change, counted from the
// last: a task that ends frees what another framework waits for, and a
// decline of it by a framework first in line does not end the run. One
// agent of 4 CPUs; g runs a task of 4 CPUs for 30 s and waits with one that
// fits no agent, f waits with a task of 3 CPUs. At 30 s the agent is
// offered to g, which declines it, then to f.
func TestRunStallCountsFromTheLastChange(t *testing.T) {
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:4;mem:8192"}},
		Tasks: []sim.Task{
			{Framework: "g", Role: "a", ID: "long", Resources: qty("cpus:4;mem:1024"), Duration: 30 * time.Second},
			{Framework: "g", Role: "a", ID: "huge", Resources: qty("cpus:16;mem:1024"), Duration: time.Second},
			{Framework: "f", Role: "b", ID: "t", Resources: qty("cpus:3;mem:1024"), Duration: time.Second},
		},
	}
	res := run(t, w, sim.RunOptions{Seed: 1})
	require.Equal(t, sim.StopStalled, res.Stopped)
	require.Equal(t, []time.Duration{31 * time.Second}, waits(t, res, "b"))
	require.Equal(t, 1, res.Summary.Unfinished) // huge
}
