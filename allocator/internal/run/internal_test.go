package run

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/explain"
	"github.com/allot-go/allot/offer"
	"github.com/allot-go/allot/resources"
)

// An offer's cuts are ordered by a source seeded from the engine's seed,
// the run, the stage, and the agent, framework and role, each string
// ended by a 0xff byte (FNV-1a): the same offer draws the same order
// whatever else its run looked at, and another offer another order.
func TestCutOrderIsSeededByTheOffer(t *testing.T) {
	e := New(Config{Seed: 7}, Parts{})
	r := &runState{id: 3}
	draws := func(src *rand.Rand) [4]uint64 {
		var out [4]uint64
		for i := range out {
			out[i] = src.Uint64()
		}
		return out
	}
	want := func(seed int64, run uint64, st cluster.Stage, agent, fw, role string) [4]uint64 {
		h := fnv.New64a()
		for _, s := range []string{agent, fw, role} {
			h.Write([]byte(s))
			h.Write([]byte{0xff})
		}
		return draws(rand.New(rand.NewPCG(uint64(seed)^run*0x9e3779b97f4a7c15, h.Sum64()^uint64(st))))
	}
	got := draws(e.cutOrder(r, stageFairShare, "a1", "f1", "r"))
	require.Equal(t, want(7, 3, stageFairShare, "a1", "f1", "r"), got)
	require.Equal(t, got, draws(e.cutOrder(r, stageFairShare, "a1", "f1", "r")), "the same offer, the same order")
	require.Equal(t, want(7, 3, stageGuarantees, "a1", "f1", "r"), draws(e.cutOrder(r, stageGuarantees, "a1", "f1", "r")))
	require.Equal(t, want(7, 3, stageFairShare, "a", "1f1", "r"), draws(e.cutOrder(r, stageFairShare, "a", "1f1", "r")))
	require.NotEqual(t, got, draws(e.cutOrder(r, stageFairShare, "a", "1f1", "r")), "the strings are told apart")
	require.NotEqual(t, got, draws(e.cutOrder(&runState{id: 4}, stageFairShare, "a1", "f1", "r")))
}

// pendingFit finds the first pending task with a count left that the
// resources hold, or -1.
func TestPendingFit(t *testing.T) {
	list := []cluster.Pending{
		{Resources: resources.MustParseQuantities("cpus:2"), Count: 1},
		{Resources: resources.MustParseQuantities("cpus:1"), Count: 0},
		{Resources: resources.MustParseQuantities("cpus:1;mem:10"), Count: 1},
	}
	require.Equal(t, 0, pendingFit(list, resources.MustParse("cpus:2;mem:10", "*")))
	require.Equal(t, 2, pendingFit(list, resources.MustParse("cpus:1;mem:10", "*")))
	require.Equal(t, -1, pendingFit(list, resources.MustParse("cpus:1", "*")))
	require.Equal(t, -1, pendingFit(nil, resources.MustParse("cpus:1", "*")))
}

// StripIncapable keeps of an offer what the framework can take, and
// strippedMissing names the capabilities it lacks for the rest.
func TestStripIncapable(t *testing.T) {
	const (
		shared  = "disk(reservations: [(DYNAMIC,r,ops)])[id:v,principal:ops,path:s]<SHARED>:10"
		refined = "cpus(reservations: [(DYNAMIC,r,ops),(DYNAMIC,r/x,ops)]):1"
	)
	all := resources.MustParse("cpus:1;mem{REV}:64;"+shared+";"+refined, "*")
	every := offer.SharedResources | offer.RevocableResources | offer.ReservationRefinement
	for _, tc := range []struct {
		caps    offer.Capabilities
		keep    string
		missing offer.Capabilities
	}{
		{0, "cpus:1", every},
		{every, "cpus:1;mem{REV}:64;" + shared + ";" + refined, 0},
		{offer.SharedResources, "cpus:1;" + shared, offer.RevocableResources | offer.ReservationRefinement},
		{offer.RevocableResources, "cpus:1;mem{REV}:64", offer.SharedResources | offer.ReservationRefinement},
		{offer.ReservationRefinement, "cpus:1;" + refined, offer.SharedResources | offer.RevocableResources},
	} {
		got := StripIncapable(all, tc.caps)
		require.True(t, got.Equal(resources.MustParse(tc.keep, "*")), "caps %v: kept %s", tc.caps, got)
		require.Equal(t, tc.missing, strippedMissing(all, tc.caps), "caps %v", tc.caps)
	}
}

// Agents without room for an outstanding offer get it from one allocation
// for the run, not one each.
func TestGroupOffersGivesFreshAgentsRoomAtOnce(t *testing.T) {
	e := New(Config{}, Parts{})
	res := resources.MustParse("cpus:1", "*").Allocate("r")
	agents := make([]*cluster.Agent, 1000)
	records := make([]explain.Offer, len(agents))
	for i := range agents {
		agents[i] = &cluster.Agent{ID: fmt.Sprintf("a%04d", i)}
		records[i] = explain.Offer{Key: explain.OfferKey{Framework: "f", Role: "r", Agent: agents[i].ID}, Res: res, Ag: agents[i], Rank: i}
	}
	e.groupOffers(records)
	allocs := testing.AllocsPerRun(5, func() {
		for _, ag := range agents {
			ag.Outstanding = nil
		}
		e.groupOffers(records)
	})
	require.LessOrEqual(t, allocs, 5.0)
	for _, ag := range agents {
		require.Len(t, ag.Outstanding, 1)
	}
}

// consumeDemand counts an offer sized to a pending task as that one task,
// even where what it holds would fit more of the statement; an offer not
// sized counts as many tasks as fit in it, in the statement's order.
func TestConsumeDemandCountsTheSizedTaskAlone(t *testing.T) {
	e := New(Config{}, Parts{})
	statement := func() *cluster.Framework {
		return &cluster.Framework{ID: "f1", Demand: map[string][]cluster.Pending{"r": {
			{Resources: resources.MustParseQuantities("cpus:1"), Count: 3},
			{Resources: resources.MustParseQuantities("cpus:2"), Count: 1},
		}}}
	}
	counts := func(fw *cluster.Framework) []int {
		var out []int
		for _, p := range fw.Demand["r"] {
			out = append(out, p.Count)
		}
		return out
	}
	fw := statement()
	e.consumeDemand(fw, "r", resources.MustParse("cpus:2", "*"), 0)
	require.Equal(t, []int{2, 1}, counts(fw), "sized to the first task")
	fw = statement()
	e.consumeDemand(fw, "r", resources.MustParse("cpus:2", "*"), 1)
	require.Equal(t, []int{3, 0}, counts(fw), "sized to the second task")
	fw = statement()
	e.consumeDemand(fw, "r", resources.MustParse("cpus:2", "*"), -1)
	require.Equal(t, []int{1, 1}, counts(fw), "not sized: two of the first fit")
}
