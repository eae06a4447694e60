package run

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// TestGroupOffersOrder checks the order of a run's result: by framework,
// then role, then the agents' ranks, whatever order the offers were made
// in (stage one's, then stage two's, each in rank order), with ids handed
// out in that order and each offer noted outstanding on its agent.
func TestGroupOffersOrder(t *testing.T) {
	e := New(Config{}, Parts{})
	agents, ranks := map[string]*cluster.Agent{}, map[string]int{}
	for i, id := range []string{"a0", "a1", "a2", "a3"} {
		agents[id], ranks[id] = &cluster.Agent{ID: id}, i
	}
	res := resources.MustParse("cpus:1", "*")
	made := []struct{ fw, role, agent string }{
		// stage one
		{"f2", "r", "a1"}, {"f1", "q", "a2"}, {"f2", "r", "a3"},
		// stage two
		{"f2", "r", "a0"}, {"f1", "q", "a0"}, {"f2", "p", "a2"}, {"f1", "q", "a1"},
	}
	var records []explain.Offer
	for _, m := range made {
		ag := agents[m.agent]
		records = append(records, explain.Offer{Key: explain.OfferKey{Framework: m.fw, Role: m.role, Agent: m.agent}, Res: res.Allocate(m.role), Ag: ag, Rank: ranks[m.agent]})
	}
	out := e.groupOffers(records)
	var got []string
	for i, o := range out {
		got = append(got, fmt.Sprintf("%s %s %s", o.FrameworkID, o.Role, o.AgentID))
		require.Equal(t, fmt.Sprintf("offer-%d", i+1), o.ID, "ids in output order")
		outstanding := map[string]string{}
		for _, oo := range agents[o.AgentID].Outstanding {
			outstanding[oo.ID] = oo.Framework + " " + oo.Role
		}
		require.Equal(t, o.FrameworkID+" "+o.Role, outstanding[o.ID], "%s noted outstanding on %s", o.ID, o.AgentID)
	}
	require.Equal(t, []string{
		"f1 q a0", "f1 q a1", "f1 q a2",
		"f2 p a2",
		"f2 r a0", "f2 r a1", "f2 r a3",
	}, got)
}

// Grouping a run's offers allocates what it hands out (the offers, their
// ids) and keeps its working storage for the next run: the second of two
// runs over 200 groups makes as few allocations as a run over one, and
// the result is the same as the first's, ids apart (the storage left from
// the first run holds nothing that leaks into the second).
func TestGroupOffersReusesItsStorage(t *testing.T) {
	e := New(Config{}, Parts{})
	res := resources.MustParse("cpus:1", "*")
	build := func(groups int) []explain.Offer {
		var records []explain.Offer
		for i := range 1000 {
			ag := &cluster.Agent{ID: fmt.Sprintf("a%04d", i), Outstanding: make([]cluster.OutstandingOffer, 0, 4)}
			fw, role := fmt.Sprintf("f%03d", (i*7)%groups), fmt.Sprintf("r%d", i%2)
			records = append(records, explain.Offer{Key: explain.OfferKey{Framework: fw, Role: role, Agent: ag.ID}, Res: res.Allocate(role), Ag: ag, Rank: i})
		}
		return records
	}
	describe := func(out []offer.Offer) []string {
		var got []string
		for _, o := range out {
			got = append(got, o.FrameworkID+" "+o.Role+" "+o.AgentID)
		}
		return got
	}
	first := describe(e.groupOffers(build(200)))
	records := build(200)
	many := testing.AllocsPerRun(5, func() {
		for i := range records {
			records[i].Ag.Outstanding = records[i].Ag.Outstanding[:0]
		}
		e.groupOffers(records)
	})
	require.Equal(t, first, describe(e.groupOffers(records)))
	one := build(1)
	few := testing.AllocsPerRun(5, func() {
		for i := range one {
			one[i].Ag.Outstanding = one[i].Ag.Outstanding[:0]
		}
		e.groupOffers(one)
	})
	require.LessOrEqual(t, many, few, "allocations grouping 200 groups against one group")
	require.LessOrEqual(t, many, 4.0, "allocations grouping a run of 1000 offers")
}
