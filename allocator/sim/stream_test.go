package sim_test

import (
	"errors"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/sim"
)

// busyWorkload is a workload of generated tasks that contend, with jobs
// that want different machines, an agent failure and a maintenance
// window, so that tasks wait, are lost and are resubmitted.
func busyWorkload() sim.Workload {
	gen := func(fw, role string, n int, rate float64, shape string) sim.Generator {
		return sim.Generator{
			Framework: fw, Role: role, Count: n, Arrival: sim.Poisson{Rate: rate},
			Size: sim.FixedSize(shape), Duration: sim.Exponential{Mean: 40},
		}
	}
	spread := gen("svc", "web", 60, 0.5, "cpus:1;mem:1024")
	spread.Group, spread.DifferentMachines = "replicas", true
	return sim.Workload{
		Agents: []sim.AgentGroup{{Name: "a", Count: 6, Resources: "cpus:8;mem:16384", Zones: []string{"x", "y"}}},
		Roles:  []sim.Role{{Name: "ml", Weight: 2}},
		Generators: []sim.Generator{
			gen("batch", "etl", 400, 4, "cpus:2;mem:2048"),
			gen("train", "ml", 200, 2, "cpus:4;mem:8192"),
			spread,
		},
		Events: []sim.Event{
			{At: 20 * time.Second, Kind: sim.AgentFailure, Agent: "a-2", For: 30 * time.Second},
			{At: 40 * time.Second, Kind: sim.AgentMaintenance, Agent: "a-3", Notice: 10 * time.Second, For: 20 * time.Second},
		},
	}
}

// streamOf streams tasks, counting in pulled the tasks read.
func streamOf(tasks []sim.Task, pulled *int) func() iter.Seq2[sim.Task, error] {
	return func() iter.Seq2[sim.Task, error] {
		return func(yield func(sim.Task, error) bool) {
			for _, t := range tasks {
				if pulled != nil {
					*pulled++
				}
				if !yield(t, nil) {
					return
				}
			}
		}
	}
}

var streamConfigs = []sim.Config{
	{Name: "drf"},
	{Name: "reclaim", StateDemand: true, Options: allocator.Options{Reclaim: allocator.ReclaimFairShare}},
}

// A workload whose tasks come as a stream runs as the same workload with
// its tasks given: every figure of every configuration, the line that
// describes it and the samples are the same, so that the stream changes
// the memory of a run and nothing else.
func TestStreamRunsAsGiven(t *testing.T) {
	w := busyWorkload()
	tasks, err := w.Expand(7)
	require.NoError(t, err)
	given := w
	given.Generators, given.Tasks = nil, tasks
	streamed := w
	streamed.Generators, streamed.Stream = nil, streamOf(tasks, nil)
	opts := sim.RunOptions{Seed: 7}
	want, err := sim.Compare(given, streamConfigs, opts)
	require.NoError(t, err)
	got, err := sim.Compare(streamed, streamConfigs, opts)
	require.NoError(t, err)
	require.Equal(t, want, got)
	sum := want.Results[0].Summary
	require.Positive(t, sum.Lost, "the workload loses tasks with its agents")
	require.Positive(t, want.Results[1].Summary.Preempted, "reclaim preempts")
	require.Equal(t, len(tasks), sum.Finished)
}

// Given, generated and streamed tasks are merged by submission, the
// stream's after the others at one time, as Expand orders them.
func TestStreamMergesWithGiven(t *testing.T) {
	w := busyWorkload()
	all, err := w.Expand(3)
	require.NoError(t, err)
	var given, streamed []sim.Task
	for i, task := range all {
		if task.Framework == "train" || i%3 == 0 {
			streamed = append(streamed, task)
		} else {
			given = append(given, task)
		}
	}
	// Ties: a streamed task at the time of a given one comes after it.
	tie := sim.Task{Framework: "batch", Role: "etl", ID: "tie", Submit: given[5].Submit, Resources: given[5].Resources, Duration: time.Second}
	mixed := w
	mixed.Generators, mixed.Tasks = nil, given
	mixed.Stream = streamOf(insertBySubmit(streamed, tie), nil)
	order, err := mixed.Expand(3)
	require.NoError(t, err)
	require.Len(t, order, len(all)+1)
	k := indexOf(order, "tie")
	require.Equal(t, given[5].ID, order[k-1].ID, "after the given task of its time")

	flat := mixed
	flat.Tasks, flat.Stream = order, nil
	opts := sim.RunOptions{Seed: 3}
	want, err := sim.Compare(flat, streamConfigs, opts)
	require.NoError(t, err)
	got, err := sim.Compare(mixed, streamConfigs, opts)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func insertBySubmit(tasks []sim.Task, t sim.Task) []sim.Task {
	for i, u := range tasks {
		if u.Submit > t.Submit {
			return append(tasks[:i:i], append([]sim.Task{t}, tasks[i:]...)...)
		}
	}
	return append(tasks, t)
}

func indexOf(tasks []sim.Task, id string) int {
	for i, t := range tasks {
		if t.ID == id {
			return i
		}
	}
	return -1
}

// A run reads its stream as its clock goes: when an interval is measured,
// it has read the tasks submitted by then and at most one more (after a
// first reading through, which checks the tasks before the run).
func TestStreamReadLazily(t *testing.T) {
	w := busyWorkload()
	tasks, err := w.Expand(1)
	require.NoError(t, err)
	pulled := 0
	w.Generators, w.Stream = nil, streamOf(tasks, &pulled)
	checked := 0
	opts := sim.RunOptions{Seed: 1, OnSample: func(_ string, s sim.Sample) error {
		due := len(tasks) // the first reading
		for _, task := range tasks {
			if task.Submit <= s.At {
				due++
			}
		}
		if pulled < due || pulled > due+1 {
			return fmt.Errorf("at %s: %d tasks read, %d due", s.At, pulled-len(tasks), due-len(tasks))
		}
		checked++
		return nil
	}}
	_, err = sim.Run(w, sim.Config{Name: "drf"}, opts)
	require.NoError(t, err)
	require.Greater(t, checked, 100)
	require.Equal(t, 2*len(tasks), pulled, "read once to check, once to run")
}

// A stream out of submission order, or one that fails, stops the run
// with an error that names the task or wraps the stream's.
func TestStreamErrors(t *testing.T) {
	w := busyWorkload()
	tasks, err := w.Expand(1)
	require.NoError(t, err)
	w.Generators = nil
	late := append([]sim.Task(nil), tasks...)
	late[10], late[40] = late[40], late[10]
	w.Stream = streamOf(late, nil)
	_, err = sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidWorkload)
	// Task 11 is submitted late: the next is the first out of order.
	require.ErrorContains(t, err, fmt.Sprintf("task 12 (%q of framework %q)", late[11].ID, late[11].Framework))
	require.ErrorContains(t, err, "want the stream in order of submission")

	_, err = w.Expand(1)
	require.ErrorIs(t, err, sim.ErrInvalidWorkload)

	broken := errors.New("disk on fire")
	w.Stream = func() iter.Seq2[sim.Task, error] {
		return func(yield func(sim.Task, error) bool) {
			if yield(tasks[0], nil) {
				yield(sim.Task{}, broken)
			}
		}
	}
	_, err = sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{})
	require.ErrorIs(t, err, broken)
	require.ErrorContains(t, err, "task stream, after 1 tasks")

	// A stream that reads otherwise at the run than at its check.
	readings := 0
	w.Stream = func() iter.Seq2[sim.Task, error] {
		readings++
		if readings == 1 {
			return streamOf(tasks, nil)()
		}
		other := append([]sim.Task(nil), tasks...)
		other[0].Framework = "stranger"
		return streamOf(other, nil)()
	}
	_, err = sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidWorkload)
	require.ErrorContains(t, err, `framework "stranger"`)

	// Two tasks of one ID under way at once.
	dup := append([]sim.Task(nil), tasks[:3]...)
	dup[1].ID, dup[1].Framework = dup[0].ID, dup[0].Framework
	dup[0].Duration = time.Hour
	w.Stream, w.Events = streamOf(dup, nil), nil
	_, err = sim.Run(w, sim.Config{Name: "drf"}, sim.RunOptions{})
	require.ErrorIs(t, err, sim.ErrInvalidWorkload)
	require.ErrorContains(t, err, "submitted twice")
}
