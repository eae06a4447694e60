package run_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// holdWorld: agent a1 of cpus:2;mem:2048, where f1 (role b) runs t1 on
// cpus:1;mem:1024 and t2 on the rest; f2 (role a, first by name) waits.
// t1 is preempted: what it used is held for f1 for ten seconds.
func holdWorld(t *testing.T, cfg run.Config) *world {
	w := newWorld(t, cfg)
	w.agent("a1", "cpus:2;mem:2048")
	w.framework("f1", "b")
	o := w.run(true).Offers[0]
	task, ok := offer.PickTask(o.Resources, "t1", qty("cpus:1;mem:1024"), "b")
	require.True(t, ok)
	rest := offer.Task{ID: "t2", Resources: o.Resources.Minus(task.Resources)}
	w.ok(w.m.Accept("f1", "a1", o.Resources, []offer.Operation{offer.Launch{Tasks: []offer.Task{task, rest}}}, nil))
	w.framework("f2", "a")
	w.ok(w.m.PreemptTask("f1", "t1", 10*time.Second))
	return w
}

// What is held for a framework is offered to it alone, ahead of the
// others (f2's share is lower), up to the instant the hold ends.
func TestHoldsAreOfferedToTheirFrameworkAlone(t *testing.T) {
	w := holdWorld(t, run.Config{})
	w.now = w.now.Add(10 * time.Second)
	r := w.run(false)
	require.Equal(t, []string{"f1 b a1 cpus:1; mem:1024"}, offers(r.Offers))
	require.Empty(t, w.cs.Agents.Get("a1").Holds())
}

// A hold that ran out goes back to the pool before the run offers it: it
// is offered by fair share.
func TestAnExpiredHoldGoesBackToThePool(t *testing.T) {
	w := holdWorld(t, run.Config{})
	w.now = w.now.Add(10*time.Second + 1)
	r := w.run(false)
	require.Equal(t, []string{"f2 a a1 cpus:1; mem:1024"}, offers(r.Offers))
	require.Empty(t, w.cs.Agents.Get("a1").Holds())
}

// A hold stays held while its framework is inactive, suppresses offers in
// its role, or refuses it with a filter; it goes back to the pool once the
// framework cannot take it (constraints that exclude the agent now).
func TestHoldsKeptOrGivenBack(t *testing.T) {
	held := cluster.HoldList{{Framework: "f1", Res: alloc("cpus:1;mem:1024", "b"), Until: t0.Add(10 * time.Second)}}
	for name, tc := range inOrder(map[string]struct {
		change func(w *world)
		kept   bool
		offers []string
	}{
		"inactive": {func(w *world) { w.ok(w.m.DeactivateFramework("f1")) }, true, nil},
		"suppressed": {func(w *world) {
			w.ok(w.m.SuppressOffers("f1", "b"))
		}, true, nil},
		"filtered": {func(w *world) {
			refuse := time.Minute
			// t2's resources given back with a filter that covers
			// what is held too.
			w.ok(w.m.Recover("f1", "a1", alloc("cpus:1;mem:1024", "b"), &refuse, true))
		}, true, []string{"f2 a a1 cpus:1; mem:1024"}},
		"constraints": {func(w *world) {
			w.ok(w.m.UpdateFramework("f1", cluster.FrameworkInfo{Roles: []string{"b"},
				Constraints: map[string]cluster.Constraints{"b": {{{Attribute: "rack", Op: cluster.OpExists}}}}}))
		}, false, []string{"f2 a a1 cpus:1; mem:1024"}},
		"too small": {func(w *world) {
			w.ok(w.m.UpdateFramework("f1", cluster.FrameworkInfo{Roles: []string{"b"},
				MinAllocatable: map[string][]resources.Quantities{"b": {qty("cpus:2")}}}))
		}, false, []string{"f2 a a1 cpus:1; mem:1024"}},
	}) {
		t.Run(name, func(t *testing.T) {
			w := holdWorld(t, run.Config{})
			tc.change(w)
			r := w.run(true)
			require.Equal(t, tc.offers, offers(r.Offers))
			if tc.kept {
				require.Equal(t, held, holdsOf(w.cs.Agents.Get("a1")))
			} else {
				require.Empty(t, w.cs.Agents.Get("a1").Holds())
			}
		})
	}
}

// What a hold offers joins the offer the run makes the same framework in
// the same role on the agent, in stage one and in stage two alike.
func TestHoldsJoinTheRunsOffers(t *testing.T) {
	for _, guarantee := range []bool{false, true} {
		w := holdWorld(t, run.Config{})
		w.ok(w.m.RemoveFramework("f2"))
		w.ok(w.m.EndTask("f1", "t2"))
		if guarantee {
			w.quota("b", "cpus:2", "")
		}
		r := w.run(true)
		require.Equal(t, []string{"f1 b a1 cpus:2; mem:2048"}, offers(r.Offers), "guarantee=%v", guarantee)
	}
}

// An agent a run leaves out still gives back its expired holds, and only
// those; one over-allocated under an expired hold is then offered in the
// same run.
func TestHoldsOnAgentsLeftOut(t *testing.T) {
	w := holdWorld(t, run.Config{})
	w.ok(w.cs.DeactivateAgent("a1"))
	w.now = w.now.Add(10 * time.Second)
	r := w.run(true)
	require.Equal(t, 1, r.Stats.SkippedAgents)
	require.Len(t, w.cs.Agents.Get("a1").Holds(), 1, "not expired yet")
	w.now = w.now.Add(time.Nanosecond)
	r = w.run(true)
	require.Equal(t, 1, r.Stats.SkippedAgents)
	require.Empty(t, w.cs.Agents.Get("a1").Holds())
	requireRes(t, res("cpus:1;mem:1024"), w.cs.Agents.Get("a1").Available)

	// a1 shrinks under what is held there: over-allocated, until the hold
	// ends.
	w = holdWorld(t, run.Config{})
	w.ok(w.m.UpdateAgent("a1", cluster.AgentInfo{Hostname: "h-a1"}, ptr(res("cpus:1.5;mem:1536"))))
	require.True(t, w.cs.Agents.Get("a1").OverAllocated)
	r = w.run(true)
	require.Equal(t, 1, r.Stats.SkippedAgents)
	w.now = w.now.Add(11 * time.Second)
	r = w.run(true)
	require.Zero(t, r.Stats.SkippedAgents)
	require.Equal(t, []string{"f2 a a1 cpus:0.5; mem:512"}, offers(r.Offers))
}

// HoldsToOffered turns a framework's holds (every framework's for "") into
// offers, so that the usual paths give them back.
func TestHoldsToOffered(t *testing.T) {
	w := holdWorld(t, run.Config{})
	ag := w.cs.Agents.Get("a1")
	w.e.HoldsToOffered(ag, "f2")
	require.Len(t, ag.Holds(), 1)
	w.e.HoldsToOffered(ag, "")
	require.Empty(t, ag.Holds())
	requireRes(t, alloc("cpus:1;mem:1024", "b"), ag.Offered.Get("f1"))
	w.check()
	other := w.agent("a2", "cpus:1")
	w.e.HoldsToOffered(other, "")
	require.Nil(t, other.Rare)
}
