package run_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/reclaim"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// reclaimWorld: agent a1 of cpus:4;mem:4096 taken whole by fo (role o),
// running t0 to t3 on cpus:1;mem:1024 each; role g is guaranteed
// cpus:2;mem:2048 and its framework fg waits for one task of
// cpus:1.5;mem:1500.
func reclaimWorld(t *testing.T, cfg run.Config) *world {
	w := newWorld(t, cfg)
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("fo", "o")
	o := w.run(true).Offers[0]
	var tasks []offer.Task
	left := o.Resources
	for i := range 4 {
		task, ok := offer.PickTask(left, fmt.Sprintf("t%d", i), qty("cpus:1;mem:1024"), "o")
		require.True(t, ok)
		left = left.Minus(task.Resources)
		tasks = append(tasks, task)
	}
	w.ok(w.m.Accept("fo", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil))
	w.quota("g", "cpus:2;mem:2048", "")
	w.framework("fg", "g")
	w.demand("fg", "g", pend("cpus:1.5;mem:1500", 1))
	return w
}

// launchAll makes a run and launches n tasks of each on the offer it
// makes fw, named t0, t1, ...
func launchAll(t *testing.T, w *world, fw, role string, n int, each string) {
	t.Helper()
	out := w.run(true).Offers
	require.Len(t, out, 1)
	o := out[0]
	var tasks []offer.Task
	left := o.Resources
	for i := range n {
		task, ok := offer.PickTask(left, fmt.Sprintf("t%d", i), qty(each), role)
		require.True(t, ok)
		left = left.Minus(task.Resources)
		tasks = append(tasks, task)
	}
	w.ok(w.m.Accept(fw, o.AgentID, o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil))
}

func chosen(cs []reclaim.Chosen) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s/%s for %s/%s room %s", c.Ref.Framework, c.Ref.Task, c.ForFramework, c.HeldIn, c.Room))
	}
	return out
}

// With reclaim for guarantees, a run chooses the tasks to end for a
// pending task of a role below its guarantee; as each ends, what it frees
// of the room is held for the task's framework, and offered to it once
// the room is whole. The task offered is counted off the framework's
// statement, once for the whole room: no task is chosen again for it.
func TestReclaimHoldsTheRoomAndOffersItOnce(t *testing.T) {
	w := reclaimWorld(t, run.Config{Reclaim: reclaim.Guarantees})
	r := w.run(true)
	require.Empty(t, r.Offers)
	require.Equal(t, []string{"fo/t3 for fg/g room cpus:1; mem:1024", "fo/t2 for fg/g room cpus:0.5; mem:476"}, chosen(r.Chosen))
	until := w.now.Add(10 * time.Second)
	require.Equal(t, until, r.Chosen[0].Until, "ten allocation intervals by default")

	w.ok(w.m.EndTask("fo", "t3"))
	r = w.run(true)
	require.Empty(t, r.Offers, "the room waits for t2")
	require.Empty(t, r.Chosen)
	require.Equal(t, []string{"fg cpus(allocated: g):1; mem(allocated: g):1024"}, holds(w))

	w.ok(w.m.EndTask("fo", "t2"))
	require.Equal(t, []string{"fg cpus(allocated: g):1; mem(allocated: g):1024", "fg cpus(allocated: g):0.5; mem(allocated: g):476"}, holds(w))
	r = w.run(true)
	require.Equal(t, []string{"fg g a1 cpus:1.5; mem:1500"}, offers(r.Offers))
	require.Equal(t, []int{0}, counts(w, "fg", "g"), "the task offered is counted off")
	require.Empty(t, r.Chosen, "nothing is chosen again for the task offered")
	require.Empty(t, w.reclaims.Choices)
	require.Empty(t, holds(w))
}

// holds renders a1's holds as "framework resources".
func holds(w *world) []string {
	var out []string
	for _, h := range w.cs.Agents.Get("a1").Holds() {
		out = append(out, h.Framework+" "+h.Res.String())
	}
	return out
}

// Without reclaim nothing is chosen; a choice lasts Config.ReclaimTimeout,
// or ten allocation intervals.
func TestReclaimModeAndTimeout(t *testing.T) {
	w := reclaimWorld(t, run.Config{})
	r := w.run(true)
	require.Empty(t, r.Chosen)
	require.Empty(t, w.reclaims.Choices)

	w = reclaimWorld(t, run.Config{Reclaim: reclaim.Guarantees, ReclaimTimeout: 3 * time.Second})
	r = w.run(true)
	require.Len(t, r.Chosen, 2)
	require.Equal(t, w.now.Add(3*time.Second), r.Chosen[0].Until)

	w = reclaimWorld(t, run.Config{Reclaim: reclaim.Guarantees, AllocationInterval: 2 * time.Second})
	r = w.run(true)
	require.Len(t, r.Chosen, 2)
	require.Equal(t, w.now.Add(20*time.Second), r.Chosen[0].Until)
}

// What is free of a room when its victims are chosen is held at once (as
// far as the headroom held for other roles' guarantees allows it to be
// counted); the victims' rooms are held as they end.
func TestReclaimHoldsTheFreePartAtOnce(t *testing.T) {
	w := newWorld(t, run.Config{Reclaim: reclaim.Guarantees})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("fo", "o")
	launchAll(t, w, "fo", "o", 3, "cpus:1;mem:1024")
	w.quota("g", "cpus:0.5", "")
	w.quota("h", "cpus:0.4", "")
	w.framework("fg", "g")
	w.demand("fg", "g", pend("cpus:1.5;mem:1500", 1))
	r := w.run(true)
	// fo is offered what the headroom held for g and h leaves.
	require.Equal(t, []string{"fo o a1 cpus:0.1; mem:1024"}, offers(r.Offers))
	require.Equal(t, []string{"fo/t2 for fg/g room cpus:1; mem:1024", "fo/t1 for fg/g room mem:476"}, chosen(r.Chosen))
	require.Equal(t, []string{"fg cpus(allocated: g):0.5"}, holds(w))
	require.Equal(t, "cpus:0.5", r.Chosen[0].Free.String(), "what the run may hold for g of what is free")
	require.Equal(t, "cpus:1; mem:1024", w.reclaims.Choices[r.Chosen[0].Ref].Room.String())

	w.ok(w.m.EndTask("fo", "t2"))
	require.Equal(t, []string{"fg cpus(allocated: g):0.5", "fg cpus(allocated: g):1; mem(allocated: g):1024"}, holds(w))
}

// Where a limit keeps a victim's end from holding all of its room, the
// rest passes to the group's next victim (first by reference) and is held
// as that one ends; the room is whole when the last ends, and offered.
func TestReclaimPassesWhatALimitKeepsToTheNextVictim(t *testing.T) {
	w := newWorld(t, run.Config{Reclaim: reclaim.Guarantees})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("fo", "p/old")
	launchAll(t, w, "fo", "p/old", 4, "cpus:1;mem:1024")
	w.quota("p", "", "cpus:3")
	w.quota("p/new", "cpus:1.5;mem:1500", "")
	w.framework("fg", "p/new")
	w.demand("fg", "p/new", pend("cpus:1.5;mem:1500", 1))
	r := w.run(true)
	require.Equal(t, []string{"fo/t3 for fg/p/new room cpus:1; mem:1024", "fo/t2 for fg/p/new room cpus:0.5; mem:476", "fo/t1 for fg/p/new room {}"}, chosen(r.Chosen))
	rooms := func() map[string]string {
		out := map[string]string{}
		for ref, c := range w.reclaims.Choices {
			out[ref.Task] = c.Room.String()
		}
		return out
	}
	// p consumes its limit until two victims have ended: t3 holds the
	// memory, its cpu passes to t1.
	w.ok(w.m.EndTask("fo", "t3"))
	require.Equal(t, []string{"fg mem(allocated: p/new):1024"}, holds(w))
	require.Equal(t, map[string]string{"t2": "cpus:0.5; mem:476", "t1": "cpus:1"}, rooms())
	w.ok(w.m.EndTask("fo", "t2"))
	require.Equal(t, []string{"fg mem(allocated: p/new):1024", "fg cpus(allocated: p/new):0.5; mem(allocated: p/new):476"}, holds(w))
	// What t2 frees beyond its room goes back to the pool: fo may have
	// it, within p's limit; the room waits for t1.
	require.Equal(t, []string{"fo p/old a1 cpus:0.5; mem:548"}, offers(w.run(true).Offers))
	w.ok(w.m.EndTask("fo", "t1"))
	require.Equal(t, []string{"fg mem(allocated: p/new):1024", "fg cpus(allocated: p/new):0.5; mem(allocated: p/new):476", "fg cpus(allocated: p/new):1"}, holds(w))
	r = w.run(true)
	require.Equal(t, []string{"fg p/new a1 mem:1500; cpus:1.5", "fo p/old a1 mem:1024"}, offers(r.Offers))
	require.Equal(t, []int{0}, counts(w, "fg", "p/new"))
	require.Empty(t, r.Chosen)
}

// With reclaim for fair shares, a role offered nothing in the run makes
// room for its pending task by ending a task of a role whose weighted
// share stays above its own after the move; a weight that would put it
// above the victim's role leaves it waiting, and a role offered
// something in the run waits too.
func TestReclaimForFairShare(t *testing.T) {
	for _, tc := range []struct {
		weight float64
		chosen []string
		share  [2]float64
	}{
		{1, []string{"fa/t3 for fb/b room cpus:1; mem:1024"}, [2]float64{0, 0.25}},
		{10, []string{"fa/t3 for fb/b room cpus:1; mem:1024"}, [2]float64{0, 0.025}},
		{0.1, nil, [2]float64{}},
	} {
		w := newWorld(t, run.Config{Reclaim: reclaim.FairShare})
		w.agent("a1", "cpus:4;mem:4096")
		w.framework("fa", "a")
		launchAll(t, w, "fa", "a", 4, "cpus:1;mem:1024")
		w.framework("fb", "b")
		if tc.weight != 1 {
			w.ok(w.m.UpdateWeights(map[string]float64{"b": tc.weight}))
		}
		w.demand("fb", "b", pend("cpus:1;mem:1024", 1))
		r := w.run(true)
		require.Equal(t, tc.chosen, chosen(r.Chosen), "weight %v", tc.weight)
		if tc.chosen != nil {
			require.Equal(t, tc.share, r.Chosen[0].ForShare)
			require.Equal(t, [2]float64{1, 0.75}, r.Chosen[0].RoleShare)
		}
	}

	w := newWorld(t, run.Config{Reclaim: reclaim.FairShare})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("fa", "a")
	launchAll(t, w, "fa", "a", 4, "cpus:1;mem:1024")
	w.framework("fb", "b")
	w.framework("fb2", "b")
	w.demand("fb", "b", pend("cpus:1;mem:1024", 1))
	w.agent("a2", "cpus:0.5;mem:512")
	r := w.run(true)
	require.Equal(t, []string{"fb2 b a2 cpus:0.5; mem:512"}, offers(r.Offers))
	require.Empty(t, r.Chosen)

	// Reclaim for guarantees alone makes no room for a fair share.
	w = newWorld(t, run.Config{Reclaim: reclaim.Guarantees})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("fa", "a")
	launchAll(t, w, "fa", "a", 4, "cpus:1;mem:1024")
	w.framework("fb", "b")
	w.demand("fb", "b", pend("cpus:1;mem:1024", 1))
	require.Empty(t, w.run(true).Chosen)
}

// The last victim of a group to end holds what is left of the room from
// all that is available on the agent, not from its own end alone: what the
// others freed and a limit kept from being held went back there, and the
// room handed on to it can be larger than the task it ran.
func TestReclaimTheLastVictimHoldsFromWhatIsAvailable(t *testing.T) {
	w := newWorld(t, run.Config{Reclaim: reclaim.Guarantees})
	w.agent("a1", "cpus:3.5;mem:3584")
	w.framework("fo", "p/old")
	o := w.run(true).Offers[0]
	var tasks []offer.Task
	left := o.Resources
	for i, size := range []string{"cpus:0.5;mem:512", "cpus:1;mem:1024", "cpus:1;mem:1024", "cpus:1;mem:1024"} {
		task, ok := offer.PickTask(left, fmt.Sprintf("t%d", i), qty(size), "p/old")
		require.True(t, ok)
		left = left.Minus(task.Resources)
		tasks = append(tasks, task)
	}
	w.ok(w.m.Accept("fo", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: tasks}}, nil))
	w.quota("p", "", "cpus:2.5")
	w.quota("p/new", "cpus:1.5;mem:1500", "")
	w.framework("fg", "p/new")
	w.demand("fg", "p/new", pend("cpus:1.5;mem:1500", 1))
	r := w.run(true)
	require.Equal(t, []string{"fo/t3 for fg/p/new room cpus:1; mem:1024", "fo/t2 for fg/p/new room cpus:0.5; mem:476", "fo/t0 for fg/p/new room {}"}, chosen(r.Chosen))
	for _, id := range []string{"t3", "t2"} {
		w.ok(w.m.EndTask("fo", id))
	}
	require.Equal(t, "cpus:1", w.reclaims.Choices[reclaim.TaskRef{Framework: "fo", Task: "t0"}].Room.String(), "t0 frees half a cpu")
	w.ok(w.m.EndTask("fo", "t0"))
	held := resources.Quantities{}
	for _, h := range w.cs.Agents.Get("a1").Holds() {
		held.Add(h.Res.Quantities())
	}
	require.Equal(t, "cpus:1.5; mem:1500", held.String())
	r = w.run(true)
	require.Equal(t, "fg p/new a1 mem:1500; cpus:1.5", offers(r.Offers)[0])
}
