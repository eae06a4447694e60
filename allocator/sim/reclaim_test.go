package sim_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
)

// crowdedOut is one agent of 4 CPUs that role a fills at 0 s with 4
// tasks of 1 CPU and 1000 s; role b submits 2 tasks of 1 CPU and 100 s at
// 10 s.
func crowdedOut() sim.Workload {
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:4"}}}
	for i := 1; i <= 4; i++ {
		w.Tasks = append(w.Tasks, sim.Task{Framework: "fa", Role: "a", ID: fmt.Sprint("a", i), Resources: qty("cpus:1"), Duration: 1000 * time.Second})
	}
	for i := 1; i <= 2; i++ {
		w.Tasks = append(w.Tasks, sim.Task{Framework: "fb", Role: "b", ID: fmt.Sprint("b", i), Submit: 10 * time.Second, Resources: qty("cpus:1"), Duration: 100 * time.Second})
	}
	return w
}

var fairShare = allocator.Options{Reclaim: allocator.ReclaimFairShare}

func runConfig(t *testing.T, w sim.Workload, cfg sim.Config) *sim.Result {
	t.Helper()
	res, err := sim.Run(w, cfg, sim.RunOptions{Seed: 1})
	require.NoError(t, err)
	return res
}

// waits returns role's waits in r.
func waits(t *testing.T, r *sim.Result, role string) []time.Duration {
	t.Helper()
	i, ok := r.Role(role)
	require.True(t, ok)
	return r.Waits[i]
}

// Without reclaim, or without stated demand (reclaim makes room only for
// tasks stated), b waits for a's tasks to end at 1000 s: 990 s.
func TestReclaimNeedsDemand(t *testing.T) {
	for _, cfg := range []sim.Config{
		{Name: "off"},
		{Name: "off-demand", StateDemand: true},
		{Name: "fair", Options: fairShare},
	} {
		res := runConfig(t, crowdedOut(), cfg)
		require.Equal(t, []time.Duration{990 * time.Second, 990 * time.Second}, waits(t, res, "b"), cfg.Name)
		require.Zero(t, res.Summary.Preempted, cfg.Name)
		require.Equal(t, 6, res.Summary.Submitted, cfg.Name)
		require.Equal(t, 1101, res.Summary.Intervals, cfg.Name) // b's tasks run 1000 s to 1100 s
	}
}

// With fair-share reclaim and stated demand, run 10 (b has nothing)
// chooses a task of a; the host ends it at once, and what it frees is
// held for b and offered at run 11: b1 waits 1 s. Run 11 offers b the
// hold and run 12 is the one after a choice, so run 12 chooses again
// (b at 1 CPU is below a at 3, and at 2 against 2 it is not above a):
// b2 is offered the hold at 13 and waits 3 s. The two tasks of a go back
// to the front of fa's backlog at 10 s and 12 s, the one of 12 s first,
// and start as b's tasks end, at 111 s and 113 s: waits of 99 s and
// 103 s; they end at 1111 s and 1113 s, the run's last interval.
func TestReclaimEndsChosenTasks(t *testing.T) {
	res := runConfig(t, crowdedOut(), sim.Config{Name: "fair-demand", Options: fairShare, StateDemand: true})
	require.Equal(t, []time.Duration{time.Second, 3 * time.Second}, waits(t, res, "b"))
	require.Equal(t, []time.Duration{0, 0, 0, 0, 99 * time.Second, 103 * time.Second}, waits(t, res, "a"))
	s := res.Summary
	require.Equal(t, sim.StopDone, res.Stopped)
	require.Equal(t, 1114, s.Intervals)
	require.Equal(t, 2, s.Preempted)
	require.Equal(t, 8, s.Submitted) // the two preempted are submitted again
	require.Equal(t, 8, s.Launched)
	require.Equal(t, 6, s.Finished)
	require.Zero(t, s.Lost+s.Unfinished)
	// A chosen task ends after the run that chose it; the CPU it frees is
	// held for b and taken at the next run.
	var used []float64
	for _, smp := range res.Samples[9:15] {
		used = append(used, smp.Utilisation[0])
	}
	require.Equal(t, []float64{1, 0.75, 1, 0.75, 1, 1}, used)
}

// A delay of 3 intervals: the choice of run 10 is ended at the start of
// interval 13 and offered to b at that run (3 s); runs 11 and 12 have it
// pending, run 13 offers b, so run 14 chooses again, ended at 17 (7 s).
func TestReclaimDelay(t *testing.T) {
	res := runConfig(t, crowdedOut(), sim.Config{Name: "late", Options: fairShare, StateDemand: true, PreemptDelay: 3})
	require.Equal(t, []time.Duration{3 * time.Second, 7 * time.Second}, waits(t, res, "b"))
	require.Equal(t, 2, res.Summary.Preempted)
	// Until the host ends a chosen task it runs: the agent stays full.
	for _, smp := range res.Samples[10:18] {
		require.Equal(t, 4, smp.Running, "at %s", smp.At)
	}
}

// crowdedWithSpare is crowdedOut with b submitting one task, and a spare
// agent of 1 CPU down from 0 s to 12 s: the choice made for b at 10 s is
// withdrawn at 12 s, when b's task fits on the spare agent.
func crowdedWithSpare() sim.Workload {
	w := crowdedOut()
	w.Tasks = w.Tasks[:5]
	w.Agents = append(w.Agents, sim.AgentGroup{Name: "spare", Count: 1, Resources: "cpus:1"})
	w.Events = []sim.Event{{Kind: sim.AgentFailure, Agent: "spare-1", For: 12 * time.Second}}
	return w
}

// A choice withdrawn before the host ends it is not ended: with a delay
// of 5 intervals the task chosen at 10 s would end at 15 s, but the choice
// is withdrawn at 12 s and b's task runs on the spare agent. Without the
// delay the same choice is ended at 10 s and b's task starts on the hold
// at 11 s; the task of a goes to the spare agent at 12 s.
func TestReclaimWithdrawn(t *testing.T) {
	late := runConfig(t, crowdedWithSpare(), sim.Config{Name: "late", Options: fairShare, StateDemand: true, PreemptDelay: 5})
	require.Zero(t, late.Summary.Preempted)
	require.Equal(t, []time.Duration{2 * time.Second}, waits(t, late, "b"))
	require.Equal(t, []time.Duration{0, 0, 0, 0}, waits(t, late, "a"))
	require.Equal(t, 5, late.Summary.Submitted)

	now := runConfig(t, crowdedWithSpare(), sim.Config{Name: "now", Options: fairShare, StateDemand: true})
	require.Equal(t, 1, now.Summary.Preempted)
	require.Equal(t, []time.Duration{time.Second}, waits(t, now, "b"))
	require.Equal(t, []time.Duration{0, 0, 0, 0, 2 * time.Second}, waits(t, now, "a"))
	require.Equal(t, 6, now.Summary.Submitted)
}

// The table has a line of tasks preempted when a run preempted some, and
// none otherwise, so that tables of runs without reclaim are unchanged.
func TestReclaimTable(t *testing.T) {
	table := func(cfgs ...sim.Config) string {
		cmp, err := sim.Compare(crowdedOut(), cfgs, sim.RunOptions{Seed: 1})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, cmp.WriteTable(&b))
		return b.String()
	}
	require.NotContains(t, table(sim.Config{Name: "off"}, sim.Config{Name: "fair", Options: fairShare}), "preempted")
	out := table(sim.Config{Name: "off"}, sim.Config{Name: "fair", Options: fairShare, StateDemand: true})
	var line []string
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, "tasks preempted") {
			line = strings.Fields(l)
		}
	}
	require.Equal(t, []string{"tasks", "preempted", "0", "2"}, line)
}

// Demand is stated whole up to allocator.MaxPending shapes a role: a
// backlog of more shapes is stated by its head, and the run goes on.
func TestStateDemandManyShapes(t *testing.T) {
	w := sim.Workload{Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:1;mem:100000"}}}
	n := allocator.MaxPending + 100
	for i := range n {
		w.Tasks = append(w.Tasks, sim.Task{
			Framework: "f", Role: "r", ID: fmt.Sprint("t", i),
			Resources: qty(fmt.Sprintf("cpus:0.001;mem:%d", i+1)), Duration: time.Second, // a shape each
		})
	}
	res, err := sim.Run(w, sim.Config{Name: "demand", StateDemand: true}, sim.RunOptions{Seed: 1, Intervals: 3})
	require.NoError(t, err)
	require.Positive(t, res.Summary.Launched)
}

func TestPreemptDelayInvalid(t *testing.T) {
	_, err := sim.Run(crowdedOut(), sim.Config{Name: "x", PreemptDelay: -1}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidConfig)
}
