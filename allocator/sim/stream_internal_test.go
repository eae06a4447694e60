package sim

import (
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

// A long stream of short tasks, each job of its own group that wants
// different machines, leaves the run holding what is under way only:
// tasks, agents' lists, classes and shapes stay within a bound however
// long the stream, and the waits past ExactWaits go into a histogram.
func TestStreamStateFollowsLiveTasks(t *testing.T) {
	const n, perSecond = 30_000, 20
	stream := func() iter.Seq2[Task, error] {
		return func(yield func(Task, error) bool) {
			for i := range n {
				t := Task{
					Framework: "f", Role: "r", ID: fmt.Sprint("t", i),
					Submit:    time.Duration(i) * time.Second / perSecond,
					Resources: resources.MustParseQuantities(fmt.Sprintf("cpus:%d", 1+i%3)), Duration: 2 * time.Second,
					Group: fmt.Sprint("job", i/4), DifferentMachines: i%2 == 0,
				}
				if !yield(t, nil) {
					return
				}
			}
		}
	}
	w := Workload{Agents: []AgentGroup{{Name: "a", Count: 8, Resources: "cpus:32"}}, Stream: stream}
	opts, err := RunOptions{Seed: 1, ExactWaits: 1000}.resolved()
	require.NoError(t, err)
	m, err := compile(w, opts.Seed)
	require.NoError(t, err)
	require.Empty(t, m.tasks, "compile keeps none of the stream's tasks")
	require.Equal(t, n, m.streamed)
	r, err := newRun(m, Config{Name: "demand", StateDemand: true}, opts)
	require.NoError(t, err)
	defer r.src.close()
	const bound = 400 // tasks under way: 20 a second for 2 s, and some waiting
	for i := 0; !r.done(); i++ {
		require.Less(t, i, 3*n/perSecond, "the run ends")
		require.NoError(t, r.step(i))
		held := 0
		for _, s := range r.agents {
			held += len(s.tasks)
		}
		fw := r.fws[0]
		require.LessOrEqual(t, r.live, bound, "at %s", r.now)
		require.Equal(t, r.live, len(fw.byID))
		require.LessOrEqual(t, held, 2*bound+len(r.agents)*minCut, "agents' lists at %s", r.now)
		require.LessOrEqual(t, len(r.classes.refs), bound, "classes at %s", r.now)
		require.LessOrEqual(t, len(r.shapes.refs), 3)
		require.LessOrEqual(t, cap(fw.backlog), 4*bound)
		require.LessOrEqual(t, len(r.ends), 2*bound)
	}
	require.Equal(t, n, r.meter.counts.finished)
	require.Zero(t, r.live)
	require.Empty(t, r.classes.ids, "every class let go")
	require.Nil(t, r.meter.waits[0].exact, "past ExactWaits the waits are a histogram")
	require.Equal(t, n, r.meter.waits[0].hist.Count())
}
