package run_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/run"
)

// counts lists what is left of fw's statement in role, shape by shape.
func counts(w *world, fw, role string) []int {
	var out []int
	for _, p := range w.cs.Frameworks.Get(fw).Demand[role] {
		out = append(out, p.Count)
	}
	return out
}

// An offer to a framework that states demand is sized to its first
// pending task that fits, and the task is counted off; the agent's next
// task then goes to whoever is first in DRF order.
func TestDemandSizedOffers(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "a")
	w.framework("f2", "b")
	w.demand("f1", "a", pend("cpus:1;mem:512", 2))
	r := w.run(true)
	require.Equal(t, []string{"f1 a a1 cpus:1; mem:512", "f2 b a1 cpus:3; mem:3584"}, offers(r.Offers))
	require.Equal(t, []int{1}, counts(w, "f1", "a"))
}

// A framework alone is offered one task after the other, in one offer,
// until its statement is used up; then it leaves its role's sorter and
// the rest of the agent stays.
func TestDemandUsedUp(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "a")
	w.demand("f1", "a", pend("cpus:1", 1), pend("cpus:2", 1), pend("cpus:8", 1))
	r := w.run(true)
	require.Equal(t, []string{"f1 a a1 cpus:3"}, offers(r.Offers))
	require.Equal(t, []int{0, 0, 1}, counts(w, "f1", "a"))
	require.Equal(t, []string{"f1"}, w.books.FrameworkSorter("a").Sort(), "a task is still pending")
	w.demand("f1", "a", pend("cpus:0.5", 2))
	r = w.run(true)
	require.Equal(t, []string{"f1 a a1 cpus:1"}, offers(r.Offers))
	require.Equal(t, []int{0}, counts(w, "f1", "a"))
	require.Empty(t, w.books.FrameworkSorter("a").Sort(), "nothing pending: out of the sorter")
	require.Equal(t, "cpus:0; mem:4096", "cpus:0; "+w.cs.Agents.Get("a1").Available.String())
}

// With whole offers, an offer to a framework that states demand is all
// that is left for it, and counts off every pending task it holds, in the
// statement's order, no more than are pending.
func TestDemandWholeOffers(t *testing.T) {
	w := newWorld(t, run.Config{WholeOffers: true})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "a")
	w.demand("f1", "a", pend("cpus:1;mem:1024", 2), pend("cpus:3", 5), pend("mem:1024", 3))
	r := w.run(true)
	require.Equal(t, []string{"f1 a a1 cpus:4; mem:4096"}, offers(r.Offers))
	require.Equal(t, []int{0, 5, 1}, counts(w, "f1", "a"))
	w.giveBack(r.Offers)
	w.demand("f1", "a", pend("cpus:1", 9))
	r = w.run(true)
	require.Equal(t, []int{5}, counts(w, "f1", "a"))
}

// A role whose frameworks all state demand that no leftover fits is not
// walked on the agent (counted unchanged); a cache-free engine walks it
// and passes each framework over for no fit. Frameworks that could not be
// offered anything (here one that suppresses offers) do not count, one
// without demand does.
func TestDemandFloorSkipsARole(t *testing.T) {
	for _, cacheFree := range []bool{false, true} {
		w := newWorld(t, run.Config{CacheFree: cacheFree})
		w.agent("a1", "cpus:4;mem:4096")
		w.framework("f1", "a")
		w.framework("f2", "a")
		w.framework("f3", "a")
		w.demand("f1", "a", pend("cpus:8", 1))
		w.demand("f2", "a", pend("cpus:6;mem:8192", 1))
		w.demand("f3", "a", pend("cpus:1", 1))
		w.ok(w.m.SuppressOffers("f3"))
		r := w.run(true)
		require.Empty(t, r.Offers)
		if cacheFree {
			require.Zero(t, r.Stats.Unchanged)
			require.ElementsMatch(t, []string{"f1 a a1 fair no-fit", "f2 a a1 fair no-fit"}, w.passes())
		} else {
			require.Equal(t, 1, r.Stats.Unchanged, "cacheFree=%v", cacheFree)
			require.Empty(t, w.passes())
		}
		// A framework without demand may take anything: the role is
		// walked.
		w.framework("f4", "a")
		r = w.run(true)
		require.Equal(t, []string{"f4 a a1 cpus:4; mem:4096"}, offers(r.Offers))
		require.Zero(t, r.Stats.Unchanged)
	}
}

// The floor is worked out from the tasks still pending: a shape used up
// does not lower it.
func TestDemandFloorLeavesOutTasksOffered(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:3;mem:4096")
	w.framework("f1", "a")
	w.demand("f1", "a", pend("cpus:1", 1), pend("cpus:4", 1))
	r := w.run(true)
	require.Equal(t, []string{"f1 a a1 cpus:1"}, offers(r.Offers))
	require.Equal(t, []int{0, 1}, counts(w, "f1", "a"))
	r = w.run(true)
	require.Empty(t, r.Offers)
	require.Equal(t, 1, r.Stats.Unchanged)
	require.Empty(t, w.passes())
	// Another framework's role is walked as usual.
	w.framework("f2", "b")
	w.demand("f2", "b", pend("cpus:1", 1))
	r = w.run(true)
	require.Equal(t, []string{"f2 b a1 cpus:1"}, offers(r.Offers))
	require.Equal(t, 1, r.Stats.Unchanged)
}

// A filter that covers an offer sized to a pending task is no verdict on
// the agent: on a smaller leftover another task may be offered, which the
// filter may not cover. The role is walked again each run.
func TestAFilteredSizedOfferIsNotRemembered(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "a")
	w.demand("f1", "a", pend("cpus:1", 9))
	out := w.run(true).Offers
	require.Equal(t, []string{"f1 a a1 cpus:4"}, offers(out))
	w.decline(out, time.Minute)
	for range 2 {
		r := w.run(true)
		require.Empty(t, r.Offers)
		require.Equal(t, []string{"f1 a a1 fair filtered"}, w.passes())
		require.Zero(t, r.Stats.Unchanged)
	}
}

// After an offer sized to a pending task, the agent's walk starts again
// in DRF order: the next task goes to the role now first, not to the next
// framework of the role just offered.
func TestASizedOfferStartsTheWalkAgain(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:4;mem:4096")
	w.framework("f1", "a")
	w.framework("f2", "a")
	w.framework("f3", "b")
	w.demand("f1", "a", pend("cpus:1", 1))
	r := w.run(true)
	require.Equal(t, []string{"f1 a a1 cpus:1", "f3 b a1 cpus:3; mem:4096"}, offers(r.Offers))
}
