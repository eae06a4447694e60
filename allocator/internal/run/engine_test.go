package run_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/run"
	"github.com/allot-go/allot/offer"
)

// A run takes exactly the agents waiting for one, and none of them waits
// after it; a periodic run takes every agent. Runs are numbered one by
// one.
func TestARunTakesTheWaitingAgents(t *testing.T) {
	w := newWorld(t, run.Config{})
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		w.agent(id, "cpus:1;mem:1024")
	}
	require.Equal(t, []string{"a1", "a2", "a3", "a4"}, w.e.Pending.Keys())
	require.False(t, w.e.PendingAll)
	r := w.run(false)
	require.Equal(t, uint64(1), r.Stats.Run)
	require.Equal(t, uint64(1), w.e.Runs)
	require.Equal(t, 4, r.Stats.Agents)
	require.Empty(t, r.Offers, "no framework yet")
	require.Zero(t, w.e.Pending.Len())

	w.framework("f1", "r")
	require.True(t, w.e.PendingAll)
	w.e.WantsRun(w.cs.Agents.Get("a2"))
	require.Zero(t, w.e.Pending.Len(), "every agent waits: none is listed")
	r = w.run(false)
	require.Equal(t, uint64(2), r.Stats.Run)
	require.False(t, r.Stats.Periodic)
	require.Equal(t, []string{"a1", "a2", "a3", "a4"}, w.log.Candidates)
	require.Len(t, r.Offers, 4)
	require.False(t, w.e.PendingAll)

	// Two agents wait: the run looks at those two alone, however many
	// agents there are.
	w.decline(r.Offers, 0)
	w.e.WantsRun(w.cs.Agents.Get("a3"))
	w.e.WantsRun(w.cs.Agents.Get("a1"))
	r = w.run(false)
	require.Equal(t, []string{"a1", "a3"}, w.log.Candidates)
	require.Equal(t, 2, r.Stats.Agents)
	require.Equal(t, []string{"f1 r a1 cpus:1; mem:1024", "f1 r a3 cpus:1; mem:1024"}, offers(r.Offers))
	require.Zero(t, w.e.Pending.Len())
	require.False(t, w.e.PendingAll)

	// A run with nobody waiting looks at no agent.
	r = w.run(false)
	require.Empty(t, w.log.Candidates)
	require.Zero(t, r.Stats.Agents)
	require.Empty(t, r.Offers)
	require.Equal(t, uint64(4), r.Stats.Run)

	// AllWantRun drops the list; a periodic run takes every agent.
	w.e.WantsRun(w.cs.Agents.Get("a1"))
	w.e.AllWantRun()
	require.Zero(t, w.e.Pending.Len())
	require.True(t, w.e.PendingAll)
	w.e.PendingAll = false
	r = w.run(true)
	require.True(t, r.Stats.Periodic)
	require.Equal(t, []string{"a1", "a2", "a3", "a4"}, w.log.Candidates)
	require.Equal(t, []string{"f1 r a2 cpus:1; mem:1024", "f1 r a4 cpus:1; mem:1024"}, offers(r.Offers))
	require.False(t, w.e.PendingAll)
	require.Equal(t, uint64(5), w.e.Runs)

	// An agent that joins after runs is taken by the next.
	w.agent("a5", "cpus:1;mem:1024")
	r = w.run(false)
	require.Equal(t, []string{"a5"}, w.log.Candidates)
	require.Equal(t, []string{"f1 r a5 cpus:1; mem:1024"}, offers(r.Offers))
	// Periodic runs one after the other each list every agent once.
	for range 2 {
		w.run(true)
		require.Equal(t, []string{"a1", "a2", "a3", "a4", "a5"}, w.log.Candidates)
	}
}

// An agent listed as waiting that is gone by the run is left out.
func TestARunLeavesOutAgentsGone(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:1;mem:1024")
	w.framework("f1", "r")
	w.e.PendingAll = false
	w.e.WantsRun(&cluster.Agent{ID: "a0"})
	w.e.WantsRun(w.cs.Agents.Get("a1"))
	r := w.e.Triggered(false)
	require.Equal(t, []string{"a0", "a1"}, w.log.Candidates)
	require.Equal(t, 1, r.Stats.Agents)
	require.Zero(t, r.Stats.SkippedAgents)
	require.Equal(t, []string{"f1 r a1 cpus:1; mem:1024"}, offers(r.Offers))
}

// Offers are numbered once, in the order of the result, and never again:
// a later run goes on from the last number.
func TestOffersAreNumberedOnce(t *testing.T) {
	w := newWorld(t, run.Config{})
	for _, id := range []string{"a1", "a2", "a3"} {
		w.agent(id, "cpus:1;mem:1024")
	}
	w.framework("f1", "r")
	seen := map[string]bool{}
	next := 1
	for range 3 {
		r := w.run(true)
		require.Len(t, r.Offers, 3)
		require.Equal(t, 3, r.Stats.Offers)
		for _, o := range r.Offers {
			require.False(t, seen[o.ID], "%s handed out twice", o.ID)
			seen[o.ID] = true
			require.Equal(t, "offer-"+itoa(next), o.ID)
			next++
		}
		w.decline(r.Offers, 0)
	}
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// A run's offers are grouped by framework, then role, then agent, one
// offer per framework, role and agent, each noted outstanding on its
// agent.
func TestOffersAreGroupedAndSorted(t *testing.T) {
	w := newWorld(t, run.Config{})
	for _, id := range []string{"a3", "a1", "a4", "a2"} {
		w.agent(id, "cpus:2;mem:2048")
	}
	// Each framework's filters leave it some agents: the run offers them
	// in an order the shuffles draw, the result is sorted.
	w.framework("fb", "q")
	w.framework("fa", "r", "q")
	r := w.run(true)
	require.Equal(t, 4, r.Stats.Offers)
	got := offers(r.Offers)
	require.IsIncreasing(t, got)
	for _, o := range r.Offers {
		ag := w.cs.Agents.Get(o.AgentID)
		require.Len(t, ag.Outstanding, 1)
		require.Equal(t, cluster.OutstandingOffer{ID: o.ID, Framework: o.FrameworkID, Role: o.Role, Res: o.Resources}, ag.Outstanding[0])
	}
}

// Agents inactive, over-allocated or off the whitelist are left out of a
// run and counted; the whitelist holds hostnames, and nil lets every
// agent in.
func TestARunLeavesOutAgentsItMayNotOffer(t *testing.T) {
	w := newWorld(t, run.Config{})
	for _, id := range []string{"a1", "a2", "a3", "a4"} {
		w.agent(id, "cpus:1;mem:1024")
	}
	w.framework("f1", "r")
	first := w.run(true).Offers
	w.giveBack([]offer.Offer{first[0], first[2], first[3]})
	// a2 shrinks under what f1 is offered there: over-allocated.
	w.ok(w.m.UpdateAgent("a2", cluster.AgentInfo{Hostname: "h-a2"}, ptr(res("cpus:0.5"))))
	require.True(t, w.cs.Agents.Get("a2").OverAllocated)
	w.ok(w.cs.DeactivateAgent("a1"))
	w.m.UpdateWhitelist([]string{"h-a2", "h-a1", "h-a4"})
	r := w.run(true)
	require.Equal(t, 1, r.Stats.Agents)
	require.Equal(t, 3, r.Stats.SkippedAgents)
	require.Equal(t, "agent-inactive:3", skips(r.Stats))
	require.Equal(t, []string{"f1 r a4 cpus:1; mem:1024"}, offers(r.Offers))
	var skipped []string
	for _, ag := range w.log.Skipped {
		skipped = append(skipped, ag.ID)
	}
	require.ElementsMatch(t, []string{"a1", "a2", "a3"}, skipped)

	w.m.UpdateWhitelist(nil)
	w.ok(w.cs.ActivateAgent("a1"))
	r = w.run(true)
	require.Equal(t, 3, r.Stats.Agents, "a4, offered already, is a candidate with nothing left")
	require.Equal(t, 1, r.Stats.SkippedAgents)
	require.Equal(t, []string{"f1 r a1 cpus:1; mem:1024", "f1 r a3 cpus:1; mem:1024"}, offers(r.Offers))
}

// Periodic runs count the batches refusal filters are matched against;
// other runs do not.
func TestPeriodicRunsCountBatches(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:1;mem:1024")
	w.run(false)
	require.Zero(t, w.dec.Batches)
	w.run(true)
	w.run(true)
	require.Equal(t, uint64(2), w.dec.Batches)
	w.run(false)
	require.Equal(t, uint64(2), w.dec.Batches)
}

// Inverse offers go, once per window, to the active frameworks holding
// resources on a candidate agent under maintenance: not while one is
// outstanding, not while an inverse-offer filter is in force, again once
// answered.
func TestInverseOffers(t *testing.T) {
	w := newWorld(t, run.Config{})
	w.agent("a1", "cpus:2;mem:2048")
	w.agent("a2", "cpus:2;mem:2048")
	w.framework("f1", "r")
	w.framework("f2", "q")
	w.run(true) // f1 and f2 are offered a1 and a2
	w.ok(w.m.DeactivateFramework("f2"))
	window := offer.Unavailability{Start: t0.Add(time.Hour), Duration: time.Hour}
	w.ok(w.m.UpdateUnavailability("a1", &window))
	r := w.run(false)
	require.Equal(t, []string{"a1"}, w.log.Candidates)
	holders := w.cs.Agents.Get("a1").FrameworkIDs()
	want := []offer.InverseOffer(nil)
	for _, fw := range holders {
		if fw == "f1" {
			want = append(want, offer.InverseOffer{ID: "inverse-offer-1", FrameworkID: "f1", AgentID: "a1", Unavailability: window})
		}
	}
	require.Equal(t, want, r.InverseOffers)
	require.Equal(t, len(want), r.Stats.InverseOffers)
	if len(want) == 0 {
		t.Fatalf("f1 holds nothing on a1: %v", holders)
	}
	require.Empty(t, w.run(true).InverseOffers, "outstanding")
	refuse := 10 * time.Second
	w.ok(w.m.UpdateInverseOffer("a1", "f1", cluster.InverseDeclined, &refuse))
	require.Empty(t, w.run(true).InverseOffers, "filtered")
	w.now = w.now.Add(10 * time.Second)
	r = w.run(true)
	require.Equal(t, []offer.InverseOffer{{ID: "inverse-offer-2", FrameworkID: "f1", AgentID: "a1", Unavailability: window}}, r.InverseOffers)
	require.NotContains(t, w.cs.Frameworks.Get("f1").InverseFilters, "a1", "the expired filter is dropped")
	require.True(t, w.cs.Agents.Get("a1").Inverse()["f1"].Outstanding)
}
