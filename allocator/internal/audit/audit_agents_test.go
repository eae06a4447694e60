package audit

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/allocator/internal/cluster"
	"github.com/allot-go/allot/allocator/internal/tables"
	"github.com/allot-go/allot/resources"
)

// volume is a shared persistent volume reserved for r.
const volume = "disk(r)[id:v,path:s]<SHARED>:10"

// addAgent adds an agent of the given total to w as the allocator adds
// one: numbered, listed in id order, its total counted.
func (w *world) addAgent(id, total string) *cluster.Agent {
	cs := w.b.Cluster
	ag := &cluster.Agent{ID: id, Total: resources.MustParse(total, "*"), Active: true}
	cs.NumberAgent(ag)
	cs.Agents.Put(ag)
	i, _ := cs.AgentPlace(id)
	cs.AgentList = slices.Insert(cs.AgentList, i, ag)
	w.b.AddTotal(ag)
	return ag
}

// sharing is the world with agent a3, which has a shared volume, used by
// f1 and by f2, both in role r: the role sorter holds the volume once for
// r on a3, each framework's sorter once for it. Consistent.
func sharing(t *testing.T) *world {
	w := newWorld(t)
	a3 := w.addAgent("a3", "cpus:4;mem:4096;"+volume)
	f2 := &cluster.Framework{ID: "f2", Active: true}
	f2.Roles.MarkOnly(tables.Subscribed, []string{"r"})
	w.b.Cluster.Frameworks.Put(f2)
	w.b.TrackUnderRole(f2, "r")
	w.b.TrackAllocation(w.fw, a3, resources.MustParse("cpus:1;"+volume, "*").Allocate("r"), true)
	w.b.TrackAllocation(f2, a3, resources.MustParse("mem:512;"+volume, "*").Allocate("r"), true)
	require.Equal(t, 1, w.b.Cluster.RevocableOrSharedAgents)
	require.NoError(t, w.check(), "the shared volume is consistently held")
	return w
}

// TestCheckFindsEachSharedVolumeCorruption: shared volumes count once per
// agent in each sorter, and the sorters must hold, agent by agent, the
// volumes the agents' records say their clients use; each drift is
// reported by name.
func TestCheckFindsEachSharedVolumeCorruption(t *testing.T) {
	shared := resources.MustParse(volume, "*").Allocate("r")
	other := resources.MustParse("disk(r)[id:w,path:t]<SHARED>:10", "*").Allocate("r")
	cases := map[string]struct {
		corrupt func(w *world)
		want    string
	}{
		"the role sorter without the volume": {func(w *world) {
			// It was told of the volume once for each framework.
			_ = w.b.RoleSorter.Unallocated("r", "a3", shared)
			_ = w.b.RoleSorter.Unallocated("r", "a3", shared)
		}, "role sorter: r holds no shared volume on a3"},
		"a framework sorter without the volume": {func(w *world) {
			_ = w.b.FrameworkSorter("r").Unallocated("f2", "a3", shared)
		}, "framework sorter r: f2 holds no shared volume on a3"},
		"the role sorter with another volume": {func(w *world) {
			_ = w.b.RoleSorter.Allocated("r", "a3", other)
		}, "role sorter: r holds the shared volumes"},
		"a framework sorter with another volume instead": {func(w *world) {
			s := w.b.FrameworkSorter("r")
			_ = s.Unallocated("f1", "a3", shared)
			_ = s.Allocated("f1", "a3", other)
		}, "framework sorter r: f1 holds the shared volumes"},
		"agents with shared resources counted": {func(w *world) {
			w.b.Cluster.RevocableOrSharedAgents--
		}, "0 agents with revocable or shared resources counted, 1 recomputed"},
		"a volume used that is not in the total": {func(w *world) {
			a3 := w.b.Cluster.Agents.Get("a3")
			a3.Allocated.Set("f1", a3.Allocated.Get("f1").Plus(other))
		}, "agent a3: over-allocated flag false, recomputed true"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := sharing(t)
			tc.corrupt(w)
			require.ErrorContains(t, w.check(), tc.want)
		})
	}
}

// Composite keys order element by element, so that the violations about
// shared volumes come in the same order every time.
func TestCompareKeys(t *testing.T) {
	require.Negative(t, compareKeys([2]string{"r", "a1"}, [2]string{"r", "a2"}))
	require.Positive(t, compareKeys([2]string{"s", "a1"}, [2]string{"r", "a2"}))
	require.Zero(t, compareKeys([3]string{"r", "f1", "a1"}, [3]string{"r", "f1", "a1"}))
	require.Negative(t, compareKeys([3]string{"r", "f1", "a2"}, [3]string{"r", "f2", "a1"}))
}

// An agent whose total has revocable resources counts among those quota
// neither limits nor holds back, as one with shared resources does.
func TestCheckCountsRevocableAgents(t *testing.T) {
	w := newWorld(t)
	w.addAgent("a3", "cpus{REV}:2;mem:1024")
	require.NoError(t, w.check())
	w.b.Cluster.RevocableOrSharedAgents++
	require.ErrorContains(t, w.check(), "2 agents with revocable or shared resources counted, 1 recomputed")
}

// An agent whose total shrank below what is in use is over-allocated: it
// is flagged and counted, what it holds beyond its total is summed, and
// its available resources are not held to add up to its total.
func TestCheckAcceptsAnOverAllocatedAgent(t *testing.T) {
	w := newWorld(t)
	w.b.RemoveTotal(w.ag)
	w.ag.Total = resources.MustParse("cpus:1;mem:4096;cpus(r):1", "*")
	w.b.AddTotal(w.ag)
	require.True(t, w.ag.OverAllocated)
	require.Equal(t, 1, w.b.Cluster.OverAllocatedAgents)
	require.NoError(t, w.check())

	w.ag.OverAllocated = false
	require.ErrorContains(t, w.check(), "agent a1: over-allocated flag false, recomputed true")
}

// held is the world after the host preempted part of what f1 uses on a1
// and held it for f1: it moved from allocated to a hold, and counts in
// the sorters and the role tree as it did in use. Consistent.
func held(t *testing.T) *world {
	w := newWorld(t)
	res := resources.MustParse("cpus:1;cpus(r):1", "*").Allocate("r")
	w.ag.Allocated.Set("f1", w.ag.Allocated.Get("f1").Minus(res))
	w.ag.More().Holds.Add("f1", res, time.Unix(1000, 0))
	require.NoError(t, w.check(), "what is held counts as it did in use")
	return w
}

// TestCheckFindsEachHoldCorruption: resources held for a framework count
// in what it holds on the agent, and only a known framework holds any;
// each drift is reported by name.
func TestCheckFindsEachHoldCorruption(t *testing.T) {
	cases := map[string]struct {
		corrupt func(w *world)
		want    string
	}{
		"a hold gone without a trace": {func(w *world) {
			w.ag.Rare.Holds = nil
		}, "agent a1: available + offered + allocated"},
		"a hold the sorters do not charge": {func(w *world) {
			w.ag.Available = w.ag.Available.Minus(resources.MustParse("mem:1", "*"))
			w.ag.More().Holds.Add("f1", resources.MustParse("mem:1", "*").Allocate("r"), time.Unix(1000, 0))
		}, "role sorter: r holds"},
		"a hold for an unknown framework": {func(w *world) {
			w.ag.More().Holds.Add("f9", resources.MustParse("mem:1", "*").Allocate("r"), time.Unix(1000, 0))
		}, "agent a1: resources held by unknown framework f9"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := held(t)
			tc.corrupt(w)
			require.ErrorContains(t, w.check(), tc.want)
		})
	}
}

// offering is the world after f1 was offered all of a2 in role r, the
// offer outstanding. Consistent.
func offering(t *testing.T) *world {
	w := newWorld(t)
	a2 := w.b.Cluster.Agents.Get("a2")
	res := a2.Available.Allocate("r")
	w.b.TrackAllocation(w.fw, a2, res, false)
	a2.Outstanding = append(a2.Outstanding, cluster.OutstandingOffer{ID: "o1", Framework: "f1", Role: "r", Res: res})
	require.NoError(t, w.check(), "the outstanding offer is what is offered")
	return w
}

// TestCheckFindsEachOutstandingOfferCorruption: an outstanding offer is
// of a known framework, holds resources of its role alone, and the offers
// of a framework on an agent hold no more than it is offered there; each
// drift is reported by name.
func TestCheckFindsEachOutstandingOfferCorruption(t *testing.T) {
	cases := map[string]struct {
		corrupt func(o *cluster.OutstandingOffer)
		want    string
	}{
		"an offer of an unknown framework": {func(o *cluster.OutstandingOffer) {
			o.Framework = "f9"
		}, `agent a2: outstanding offer o1 of unknown framework "f9"`},
		"an offer of another role": {func(o *cluster.OutstandingOffer) {
			o.Role = "s"
		}, `agent a2: outstanding offer o1 of role "s" holds`},
		"an offer of two roles": {func(o *cluster.OutstandingOffer) {
			o.Res = o.Res.Plus(resources.MustParse("mem:1", "*").Allocate("s"))
		}, `agent a2: outstanding offer o1 of role "r" holds`},
		"an offer of more than is offered": {func(o *cluster.OutstandingOffer) {
			o.Res = o.Res.Plus(resources.MustParse("mem:1", "*").Allocate("r"))
		}, "agent a2: outstanding offers of f1 hold"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := offering(t)
			tc.corrupt(&w.b.Cluster.Agents.Get("a2").Outstanding[0])
			require.ErrorContains(t, w.check(), tc.want)
		})
	}
}

// Two offers of one framework on an agent are summed before they are held
// against what it is offered there: each fits, both together do not.
func TestCheckSumsAFrameworksOffers(t *testing.T) {
	w := offering(t)
	a2 := w.b.Cluster.Agents.Get("a2")
	half := resources.MustParse("cpus:3;mem:2048", "*").Allocate("r")
	a2.Outstanding = []cluster.OutstandingOffer{
		{ID: "o1", Framework: "f1", Role: "r", Res: half},
		{ID: "o2", Framework: "f1", Role: "r", Res: half},
	}
	require.ErrorContains(t, w.check(), "agent a2: outstanding offers of f1 hold")
}
