package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
	"github.com/allot-go/allot/resources"
)

// What a simulated framework hands placement of its backlog: every task
// its offers hold, in order, not the head and what follows it.

// task is a task of framework f in role r, submitted at 0 and lasting
// 100 s.
func task(id, role, text string) sim.Task {
	return sim.Task{Framework: "f", Role: role, ID: id, Resources: qty(text), Duration: 100 * time.Second}
}

// A head that fits no agent does not keep the tasks behind it waiting: on
// an agent of 4 CPUs, the two tasks of 1 CPU behind one of 16 run at once,
// and the run stalls with the big one left.
func TestBacklogNotBehindItsHead(t *testing.T) {
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:4;mem:8192"}},
		Tasks:  []sim.Task{task("big", "r", "cpus:16;mem:1024"), task("small-1", "r", "cpus:1;mem:1024"), task("small-2", "r", "cpus:1;mem:1024")},
	}
	res := run(t, w, sim.RunOptions{Seed: 1})
	require.Equal(t, []time.Duration{0, 0}, waits(t, res, "r"))
	require.Equal(t, sim.StopStalled, res.Stopped)
	require.Equal(t, 1, res.Summary.Unfinished)
}

// Tasks of one role do not crowd out those of another: f's three tasks in
// role a, which its quota limit (1 CPU) keeps from running, would fill
// the offers in sum, but only b's task can use an offer to b. The run at
// 0 s offers a its CPU with all the memory and b the other CPUs without
// memory, which f declines; at 1 s b is offered the agent, and b's task
// runs.
func TestBacklogOfOtherRoles(t *testing.T) {
	w := sim.Workload{
		Agents:     []sim.AgentGroup{{Name: "a", Count: 1, Resources: "cpus:4;mem:8192"}},
		Roles:      []sim.Role{{Name: "a", Quota: allocator.Quota{Limits: resources.MustParseLimits("cpus:1")}}},
		Frameworks: []sim.Framework{{ID: "f", Roles: []string{"a", "b"}}},
		Tasks: []sim.Task{
			task("a-1", "a", "cpus:2;mem:1024"), task("a-2", "a", "cpus:2;mem:1024"), task("a-3", "a", "cpus:2;mem:1024"),
			task("b-1", "b", "cpus:1;mem:1024"),
		},
	}
	res := run(t, w, sim.RunOptions{Seed: 1})
	require.Equal(t, []time.Duration{time.Second}, waits(t, res, "b"))
	require.Empty(t, waits(t, res, "a"))
}

// Tasks that fit no offer's room any more do not count against it: on two
// agents of 4 CPUs, two of three tasks of 3 CPUs run, one on each, and
// the two tasks of 1 CPU behind them take the CPU left on each, at once
// (placement puts each task on the first agent that holds it).
func TestBacklogPastWhatDoesNotFit(t *testing.T) {
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 2, Resources: "cpus:4;mem:8192"}},
		Tasks: []sim.Task{
			task("x-1", "r", "cpus:3;mem:1024"), task("x-2", "r", "cpus:3;mem:1024"), task("x-3", "r", "cpus:3;mem:1024"),
			task("y-1", "r", "cpus:1;mem:1024"), task("y-2", "r", "cpus:1;mem:1024"),
		},
	}
	res := run(t, w, sim.RunOptions{Seed: 1, Intervals: 5})
	require.Equal(t, []time.Duration{0, 0, 0, 0}, waits(t, res, "r"))
	require.Equal(t, []float64{1, 0.25}, res.Samples[0].Utilisation) // all the CPUs, 4 GB of 16
}

// Tasks of a group that wants different machines take one agent each in
// the window, as placement puts them, so the tasks behind them see the
// room they leave: of three replicas of 1 CPU on two agents of 4 CPUs,
// two run, one on each agent, and the two tasks of 3 CPUs behind them
// take the 3 CPUs left on each.
func TestBacklogSpreadGroup(t *testing.T) {
	replica := func(id string) sim.Task {
		t := task(id, "r", "cpus:1;mem:1024")
		t.Group, t.DifferentMachines = "svc", true
		return t
	}
	w := sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 2, Resources: "cpus:4;mem:8192"}},
		Tasks:  []sim.Task{replica("svc-1"), replica("svc-2"), replica("svc-3"), task("y-1", "r", "cpus:3;mem:1024"), task("y-2", "r", "cpus:3;mem:1024")},
	}
	res := run(t, w, sim.RunOptions{Seed: 1, Intervals: 5})
	require.Equal(t, []time.Duration{0, 0, 0, 0}, waits(t, res, "r"))
	require.Equal(t, []float64{1, 0.25}, res.Samples[0].Utilisation)
}
